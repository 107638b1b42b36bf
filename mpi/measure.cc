// The MPI-free helpers of scalewall-mpi; see mpi/measure.h.
#include "mpi/measure.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <numbers>
#include <sstream>

#include "scalewall/base/error.h"
#include "scalewall/base/stats.h"
#include "scalewall/base/units.h"

namespace scalewall::mpi {

double now_s() {
  using Seconds = std::chrono::duration<double>;
  return std::chrono::duration_cast<Seconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void busy_wait_until(double deadline_s) {
  while (now_s() < deadline_s) {
  }
}

DelayPlan::DelayPlan(double base_s, double sigma, std::uint64_t seed, int rank, int slow_rank,
                     double slow_factor)
    : base_s_(base_s), sigma_(sigma), factor_(rank == slow_rank ? slow_factor : 1.0) {
  SCALEWALL_CHECK(base_s >= 0 && sigma >= 0 && slow_factor >= 1);
  // Two words of seed material, so that rank r of seed s and rank s of seed r differ.
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(rank)};
  engine_.seed(seq);
}

double DelayPlan::standard_normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // 53-bit uniforms in (0, 1]: u1 never reaches 0, so log(u1) is finite.
  const auto uniform = [this] {
    return (static_cast<double>(engine_() >> 11) + 1.0) * 0x1.0p-53;
  };
  const double u1 = uniform();
  const double u2 = uniform();
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * std::numbers::pi * u2;
  spare_ = radius * std::sin(angle);
  has_spare_ = true;
  return radius * std::cos(angle);
}

double DelayPlan::next() {
  const double z = sigma_ > 0 ? standard_normal() : 0.0;
  return base_s_ * std::max(0.0, 1.0 + sigma_ * z) * factor_;
}

Summary summarize(std::vector<double> values) {
  Summary s;
  if (values.empty()) return s;
  s.median = scalewall::median(values);
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  return s;
}

std::vector<double> size_sweep(double min_bytes, double max_bytes) {
  SCALEWALL_CHECK(min_bytes >= 0 && min_bytes <= max_bytes);
  std::vector<double> sizes{min_bytes};
  for (double p = 1; p <= max_bytes; p *= 2) {
    if (p > min_bytes) sizes.push_back(p);
  }
  if (max_bytes > sizes.back()) sizes.push_back(max_bytes);
  return sizes;
}

std::vector<double> geometric_sweep(double min_bytes, double max_bytes, double factor,
                                    std::size_t limit) {
  SCALEWALL_CHECK(min_bytes >= 0 && min_bytes <= max_bytes && factor > 1);
  std::vector<double> sizes;
  if (min_bytes == 0) sizes.push_back(0);
  for (double s = std::max(min_bytes, 1.0); s <= max_bytes && sizes.size() <= limit;
       s = std::max(s + 1, std::floor(s * factor))) {
    sizes.push_back(s);
  }
  if (sizes.size() <= limit && sizes.back() < max_bytes) sizes.push_back(max_bytes);
  return sizes;
}

std::string utc_timestamp() {
  const std::time_t t = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

double available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (line.rfind("MemAvailable:", 0) == 0) {
      std::istringstream fields(line.substr(13));
      double kib = 0;
      if (fields >> kib) return kib * 1024.0;
    }
  }
  const long pages = ::sysconf(_SC_AVPHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) {
    return static_cast<double>(pages) * static_cast<double>(page_size);
  }
  return 0;
}

}  // namespace scalewall::mpi
