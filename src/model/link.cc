// Implementation of scalewall/model/link.h: Hockney's alpha-beta cost of one message.
#include "scalewall/model/link.h"

#include <fmt/format.h>

#include <cmath>

#include "scalewall/base/error.h"

namespace scalewall {

namespace {

void require_message_bytes(double bytes) {
  if (std::isnan(bytes) || bytes < 0.0) {
    throw InputError(fmt::format("message size {} B is negative or not a number", bytes));
  }
  if (!std::isfinite(bytes)) {
    throw InputError(fmt::format("message size {} B is not finite", bytes));
  }
}

}  // namespace

void require_valid(const Link& link) {
  // Written as !(x > 0) so that NaN fails too.
  if (!(link.alpha_s > 0.0) || !std::isfinite(link.alpha_s)) {
    throw InputError(fmt::format(
        "link latency alpha = {} s must be a positive, finite time", link.alpha_s));
  }
  if (!(link.bandwidth_Bps > 0.0) || !std::isfinite(link.bandwidth_Bps)) {
    throw InputError(fmt::format(
        "link bandwidth = {} B/s must be a positive, finite rate", link.bandwidth_Bps));
  }
  if (!(link.overhead_s >= 0.0) || !std::isfinite(link.overhead_s) ||
      2.0 * link.overhead_s > link.alpha_s * (1.0 + 1e-12)) {
    throw InputError(fmt::format(
        "LogGP overhead o = {} s must be finite, zero or more, and at most alpha/2 = {} s",
        link.overhead_s, link.alpha_s / 2.0));
  }
  if (!(link.gap_s >= 0.0) || !std::isfinite(link.gap_s)) {
    throw InputError(
        fmt::format("LogGP gap g = {} s must be a finite time, zero or more", link.gap_s));
  }
}

Link link_from_loggp(double L_s, double o_s, double g_s, double bandwidth_Bps) {
  const auto require_time = [](const char* name, double value) {
    if (!(value >= 0.0) || !std::isfinite(value)) {
      throw InputError(
          fmt::format("LogGP {} = {} s must be a finite time, zero or more", name, value));
    }
  };
  require_time("L", L_s);
  require_time("o", o_s);
  require_time("g", g_s);
  Link link;
  link.alpha_s = L_s + 2.0 * o_s;
  link.bandwidth_Bps = bandwidth_Bps;
  link.overhead_s = o_s;
  link.gap_s = g_s;
  if (!(link.alpha_s > 0.0)) {
    throw InputError("LogGP L + 2o must be above 0 (a message cannot arrive in no time)");
  }
  return link;
}

MessageCost message_cost(const Link& link, double bytes) {
  require_valid(link);
  require_message_bytes(bytes);
  MessageCost cost;
  cost.bytes = bytes;
  cost.latency_s = link.alpha_s;
  // m / bandwidth rather than m * (1 / bandwidth): one rounding instead of two.
  cost.bandwidth_s = bytes / link.bandwidth_Bps;
  cost.total_s = cost.latency_s + cost.bandwidth_s;
  if (!std::isfinite(cost.total_s)) {
    throw InputError(fmt::format(
        "message of {} B over a {} B/s link takes longer than a double can hold", bytes,
        link.bandwidth_Bps));
  }
  SCALEWALL_CHECK(cost.bandwidth_s >= 0.0 && cost.total_s >= cost.latency_s);
  return cost;
}

double crossover_bytes(const Link& link) {
  require_valid(link);
  const double m_star = link.alpha_s * link.bandwidth_Bps;
  if (!std::isfinite(m_star)) {
    throw InputError(fmt::format("crossover size alpha x bandwidth = {} s x {} B/s overflows",
                                 link.alpha_s, link.bandwidth_Bps));
  }
  return m_star;
}

std::string_view regime_name(Regime regime) {
  switch (regime) {
    case Regime::kLatencyBound:
      return "latency-bound";
    case Regime::kBalanced:
      return "balanced";
    case Regime::kBandwidthBound:
      return "bandwidth-bound";
  }
  SCALEWALL_CHECK(false && "unknown Regime");
  return {};
}

Regime classify_message(const Link& link, double bytes) {
  require_message_bytes(bytes);
  const double m_star = crossover_bytes(link);
  // alpha and bandwidth arrive as decimal text: 2.5 us x 25 GB/s is 62,500 B on paper but a
  // few ulps off it in binary, which would put a 31,250 B message on the wrong side of m*/2.
  // A relative slack of 1e-12, far below any size difference that matters, keeps such
  // boundary sizes balanced.
  constexpr double kSlack = 1e-12;
  if (bytes < (m_star / 2.0) * (1.0 - kSlack)) return Regime::kLatencyBound;
  if (bytes > (m_star * 2.0) * (1.0 + kSlack)) return Regime::kBandwidthBound;
  return Regime::kBalanced;
}

}  // namespace scalewall
