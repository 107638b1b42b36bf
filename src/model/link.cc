// Implementation of scalewall/model/link.h: Hockney's alpha-beta cost of one message.
#include "scalewall/model/link.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

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

namespace {

// The checks of one regime; `which` names it in the message ("" for a one-regime link).
void require_valid_regime(const LinkRegime& r, const std::string& which) {
  // Written as !(x > 0) so that NaN fails too.
  if (!(r.alpha_s > 0.0) || !std::isfinite(r.alpha_s)) {
    throw InputError(fmt::format("{}link latency alpha = {} s must be a positive, finite time",
                                 which, r.alpha_s));
  }
  if (!(r.bandwidth_Bps > 0.0) || !std::isfinite(r.bandwidth_Bps)) {
    throw InputError(fmt::format("{}link bandwidth = {} B/s must be a positive, finite rate",
                                 which, r.bandwidth_Bps));
  }
  if (!(r.overhead_s >= 0.0) || !std::isfinite(r.overhead_s) ||
      2.0 * r.overhead_s > r.alpha_s * (1.0 + 1e-12)) {
    throw InputError(fmt::format(
        "{}LogGP overhead o = {} s must be finite, zero or more, and at most alpha/2 = {} s",
        which, r.overhead_s, r.alpha_s / 2.0));
  }
  if (!(r.gap_s >= 0.0) || !std::isfinite(r.gap_s)) {
    throw InputError(
        fmt::format("{}LogGP gap g = {} s must be a finite time, zero or more", which, r.gap_s));
  }
}

std::string regime_label(const Link& link, std::size_t i) {
  if (!link.piecewise()) return "";
  return fmt::format("regime {} (from {} B): ", i + 1, link.regime(i).from_bytes);
}

}  // namespace

LinkRegime Link::regime(std::size_t i) const {
  SCALEWALL_CHECK(i < regime_count());
  if (i == 0) return {0.0, alpha_s, bandwidth_Bps, overhead_s, gap_s};
  return above[i - 1];
}

std::size_t Link::regime_index(double bytes) const {
  std::size_t i = 0;
  while (i < above_count && above[i].from_bytes <= bytes) ++i;
  return i;
}

Link Link::at(double bytes) const {
  const LinkRegime r = regime(regime_index(bytes));
  Link one{r.alpha_s, r.bandwidth_Bps, r.overhead_s, r.gap_s};
  one.half_duplex = half_duplex;
  one.reverse_traffic = reverse_traffic;
  return one;
}

Link Link::both_ways_at(double bytes) const {
  if (exchange_count == 0) return at(bytes);
  std::size_t i = 0;
  while (i + 1 < exchange_count && exchange[i + 1].from_bytes <= bytes) ++i;
  const LinkRegime& r = exchange[i];
  return Link{r.alpha_s, r.bandwidth_Bps, r.overhead_s, r.gap_s};
}

Link with_exchange(Link link, const Link& measured) {
  for (std::size_t i = 0; i < measured.regime_count(); ++i) link.exchange[i] = measured.regime(i);
  link.exchange_count = measured.regime_count();
  return link;
}

Link with_exchange(Link link, std::span<const LinkRegime> exchange) {
  return with_exchange(link, piecewise_link(exchange));  // piecewise_link checks the regimes
}

Link exchange_link(const Link& link) {
  if (link.exchange_count == 0) return link;
  return piecewise_link(std::span<const LinkRegime>(link.exchange.data(), link.exchange_count));
}

Link piecewise_link(std::span<const LinkRegime> regimes) {
  if (regimes.empty() || regimes.size() > kMaxLinkRegimes) {
    throw InputError(fmt::format("a link has 1 to {} size regimes, not {}", kMaxLinkRegimes,
                                 regimes.size()));
  }
  if (regimes[0].from_bytes != 0.0) {
    throw InputError(fmt::format(
        "the first size regime of a link starts at 0 B, not at {} B", regimes[0].from_bytes));
  }
  Link link{regimes[0].alpha_s, regimes[0].bandwidth_Bps, regimes[0].overhead_s,
            regimes[0].gap_s};
  for (std::size_t i = 1; i < regimes.size(); ++i) link.above[i - 1] = regimes[i];
  link.above_count = regimes.size() - 1;
  require_valid(link);
  return link;
}

void require_valid(const Link& link) {
  SCALEWALL_CHECK(link.above_count < kMaxLinkRegimes);
  SCALEWALL_CHECK(link.exchange_count <= kMaxLinkRegimes);
  if (link.exchange_count > 0) {
    try {
      exchange_link(link);
    } catch (const InputError& e) {
      throw InputError(fmt::format("exchange regimes: {}", e.what()));
    }
  }
  if (!(link.reverse_traffic >= 0.0) || !(link.reverse_traffic < 1.0)) {
    throw InputError(fmt::format(
        "link reverse traffic {} must be a fraction of the bytes, at least 0 and below 1",
        link.reverse_traffic));
  }
  for (std::size_t i = 0; i < link.regime_count(); ++i) {
    const LinkRegime r = link.regime(i);
    require_valid_regime(r, regime_label(link, i));
    if (i == 0) continue;
    const double before = link.regime(i - 1).from_bytes;
    if (!(r.from_bytes > before) || !std::isfinite(r.from_bytes)) {
      throw InputError(fmt::format(
          "link size regime {} starts at {} B, which is not a finite size above the previous "
          "regime's start ({} B): regimes must be in ascending order of size",
          i + 1, r.from_bytes, before));
    }
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
  if (!std::isfinite(link.alpha_s)) {
    throw InputError(fmt::format("LogGP L + 2o = {} s + 2 x {} s is beyond the largest double",
                                 L_s, o_s));
  }
  return link;
}

MessageCost message_cost(const Link& piecewise, double bytes) {
  require_valid(piecewise);
  require_message_bytes(bytes);
  const Link link = piecewise.at(bytes);
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

namespace {

double regime_crossover(const LinkRegime& r) {
  const double m_star = r.alpha_s * r.bandwidth_Bps;
  if (!std::isfinite(m_star)) {
    throw InputError(fmt::format("crossover size alpha x bandwidth = {} s x {} B/s overflows",
                                 r.alpha_s, r.bandwidth_Bps));
  }
  return m_star;
}

}  // namespace

double crossover_bytes(const Link& link) {
  require_valid(link);
  for (std::size_t i = 0; i < link.regime_count(); ++i) {
    const LinkRegime r = link.regime(i);
    const double m_star = regime_crossover(r);
    const bool last = i + 1 == link.regime_count();
    if (m_star < r.from_bytes) return r.from_bytes;  // every message here is bandwidth-bound
    if (last || m_star < link.regime(i + 1).from_bytes) return m_star;
  }
  SCALEWALL_CHECK(false && "the last regime returns");
  return 0;
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
  require_valid(link);
  const double m_star = regime_crossover(link.regime(link.regime_index(bytes)));
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
