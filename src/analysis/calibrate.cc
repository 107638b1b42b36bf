// Implementation of scalewall/analysis/calibrate.h (read_stream_points lives in measurement.cc, beside
// the OSU table reader it uses).
//
// The lines are fitted by fit_line (base/stats.h), on centred data.
#include "scalewall/analysis/calibrate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <map>
#include <iterator>
#include <limits>
#include <optional>
#include <set>
#include <tuple>

#include "scalewall/analysis/select.h"
#include "scalewall/model/collective.h"
#include "scalewall/model/step_model.h"
#include "scalewall/base/error.h"
#include "scalewall/base/setting.h"
#include "scalewall/base/stats.h"
#include "scalewall/base/units.h"
#include "scalewall/base/utf8.h"

namespace scalewall {
namespace {

void require_range(const FitOptions& options) {
  if (!(options.min_bytes >= 0) || std::isnan(options.max_bytes) ||
      !(options.max_bytes >= options.min_bytes)) {
    throw InputError(fmt::format("the size range {} B .. {} B is empty or invalid",
                                 options.min_bytes, options.max_bytes));
  }
}

bool in_range(double bytes, const FitOptions& options) {
  return bytes >= options.min_bytes && bytes <= options.max_bytes;
}

// TOML text for a double, exactly as the double (shortest round-trip form).
std::string toml_number(double value) { return fmt::format("{}", value); }

// TOML forbids control characters other than tab in strings and comments (U+0000..U+0008,
// U+000A..U+001F, U+007F), and a TOML file is UTF-8.
bool toml_control(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7F; }

// A TOML basic string holding `text`: quotes, backslashes and control characters escaped,
// bytes that are not UTF-8 replaced by U+FFFD. load_fabric_file reads it back unchanged
// whenever `text` is UTF-8.
std::string toml_string(std::string_view text) {
  std::string out = "\"";
  while (!text.empty()) {
    const auto c = static_cast<unsigned char>(text.front());
    const std::size_t length = utf8_sequence(text);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (toml_control(c)) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned>(c));
    } else if (length == 0) {
      out += "\\uFFFD";
      text.remove_prefix(1);
      continue;
    } else {
      out += text.substr(0, length);
      text.remove_prefix(length);
      continue;
    }
    text.remove_prefix(1);
  }
  return out + "\"";
}

// `text` made safe for a one-line TOML comment: control characters (a newline in a file name)
// and bytes that are not UTF-8 written as \n, \r or \xNN; everything else as it is.
std::string toml_comment_text(std::string_view text) {
  std::string out;
  while (!text.empty()) {
    const auto c = static_cast<unsigned char>(text.front());
    const std::size_t length = utf8_sequence(text);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (toml_control(c) || length == 0) {
      out += fmt::format("\\x{:02X}", static_cast<unsigned>(c));
    } else {
      out += text.substr(0, length);
      text.remove_prefix(length);
      continue;
    }
    text.remove_prefix(1);
  }
  return out;
}

}  // namespace

std::string_view weighting_name(Weighting weighting) {
  switch (weighting) {
    case Weighting::kRelative:
      return "relative";
    case Weighting::kOrdinary:
      return "ordinary";
  }
  SCALEWALL_CHECK(false && "unknown Weighting");
  return {};
}

Weighting parse_weighting(std::string_view text) {
  for (const Weighting w : {Weighting::kRelative, Weighting::kOrdinary}) {
    if (text == weighting_name(w)) return w;
  }
  throw InputError(fmt::format("unknown weighting '{}' (expected relative or ordinary)", text));
}

Link HockneyFit::link() const {
  Link l;
  l.alpha_s = alpha_s;
  l.bandwidth_Bps = bandwidth_Bps;
  return l;
}

namespace {

// A line through fewer sizes than this says nothing about how well it fits (two points fit
// any line exactly).
constexpr std::size_t kMinFitSizes = 3;

// The one-way times per distinct size in the range; `outside` counts the sizes left out.
std::map<double, std::vector<double>> times_by_size(std::span<const PingPongPoint> points,
                                                    const FitOptions& options,
                                                    std::map<double, bool>& outside) {
  std::map<double, std::vector<double>> by_size;
  for (const PingPongPoint& p : points) {
    if (!std::isfinite(p.bytes) || p.bytes < 0 || !std::isfinite(p.one_way_median_s) ||
        p.one_way_median_s < 0) {
      throw InputError(fmt::format("a ping-pong point of {} B and {} s is not a measurement",
                                   p.bytes, p.one_way_median_s));
    }
    if (in_range(p.bytes, options)) {
      by_size[p.bytes].push_back(p.one_way_median_s);
    } else {
      outside[p.bytes] = true;
    }
  }
  if (by_size.size() < kMinFitSizes) {
    std::string range;
    if (options.min_bytes > 0 || std::isfinite(options.max_bytes)) {
      range = fmt::format(" in {} .. {}", format_bytes(options.min_bytes),
                          std::isfinite(options.max_bytes) ? format_bytes(options.max_bytes)
                                                           : std::string("any size"));
    }
    throw InputError(fmt::format(
        "cannot fit alpha and beta from {} distinct message size(s){}: a line through fewer "
        "than {} sizes says nothing about how well it fits; measure at least {} sizes{}",
        by_size.size(), range, kMinFitSizes, kMinFitSizes,
        outside.empty() ? std::string()
                        : fmt::format(" or widen {}", setting_words(Setting::kSizeRange))));
  }
  return by_size;
}

// The weights of the fit: 1/T^2 (relative) or none (ordinary, every weight 1).
std::vector<double> fit_weights(const std::vector<FitPoint>& points, Weighting weighting) {
  std::vector<double> w;
  switch (weighting) {
    case Weighting::kRelative:
      for (const FitPoint& p : points) {
        if (!(p.measured_s > 0)) {
          throw InputError(fmt::format(
              "the median one-way time at {} is 0 s: a relative fit cannot weigh it (use the "
              "ordinary weighting, or leave that size out with {})",
              format_bytes(p.bytes), setting_words(Setting::kSizeRange)));
        }
        w.push_back(1.0 / (p.measured_s * p.measured_s));
      }
      break;
    case Weighting::kOrdinary:
      break;
  }
  return w;
}

// Refuses a line with no positive time per byte or no positive alpha over `span`.
void require_physical(const Line& line, const std::string& span) {
  if (!(line.slope > 0)) {
    throw InputError(fmt::format(
        "the fitted time per byte over {} is {:.3g} s/B, not positive: the times do not grow "
        "with size, so no bandwidth fits them (measure larger messages, or check that the "
        "sizes are bytes)",
        span, line.slope));
  }
  if (!(line.intercept > 0)) {
    throw InputError(fmt::format(
        "the fitted alpha over {} is {}{}, not positive: the small sizes lie below the line "
        "through the large ones (a protocol switch such as eager to rendezvous bends the "
        "curve); fit one regime with {}",
        span, line.intercept < 0 ? "-" : "", format_seconds(std::fabs(line.intercept)),
        setting_words(Setting::kSizeRange)));
  }
}

// fit_loggp reads a streamed size's interval m / bw as the gap g (strictly max(g, o)) only while
// its bytes, m G, take at most a tenth of that interval: the byte term then moves the reading by
// at most 10%, and the size is latency-bound; above that the interval measures bandwidth.
constexpr double kMaxGapByteShare = 0.1;

// The slowest of `times` over the fastest, of those above 0 (a time of 0 is below the
// clock's resolution): 1 when fewer than two are.
double sample_spread(const std::vector<double>& times) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = 0;
  for (const double t : times) {
    if (!(t > 0)) continue;
    lo = std::min(lo, t);
    hi = std::max(hi, t);
  }
  return hi > lo ? hi / lo : 1.0;
}

// One point per size, ascending, with its sample count and median time; the fitted time and
// the residuals are set_residuals' to fill.
std::vector<FitPoint> median_per_size(const std::map<double, std::vector<double>>& by_size) {
  std::vector<FitPoint> points;
  for (const auto& [bytes, times] : by_size) {
    FitPoint p;
    p.bytes = bytes;
    p.samples = static_cast<std::int64_t>(times.size());
    p.measured_s = median(times);
    p.spread = sample_spread(times);
    points.push_back(p);
  }
  return points;
}

// Each point's fitted time fitted(bytes), and its residual and relative residual.
template <typename Fitted>
void set_residuals(std::vector<FitPoint>& points, Fitted fitted) {
  for (FitPoint& p : points) {
    p.fitted_s = fitted(p.bytes);
    p.residual_s = p.measured_s - p.fitted_s;
    p.relative_residual = p.measured_s > 0 ? p.residual_s / p.measured_s : 0.0;
  }
}

}  // namespace

HockneyFit fit_hockney(std::span<const PingPongPoint> points, const FitOptions& options) {
  require_range(options);
  std::map<double, bool> outside;
  const std::map<double, std::vector<double>> by_size = times_by_size(points, options, outside);
  HockneyFit fit;
  fit.points = median_per_size(by_size);
  std::vector<double> x;
  std::vector<double> y;
  for (const FitPoint& p : fit.points) {
    x.push_back(p.bytes);
    y.push_back(p.measured_s);
  }
  const Line line = fit_line(x, y, fit_weights(fit.points, options.weighting));
  const std::string span = fmt::format("{} .. {}", format_bytes(x.front()), format_bytes(x.back()));
  require_physical(line, span);
  fit.alpha_s = line.intercept;
  fit.bandwidth_Bps = 1.0 / line.slope;
  fit.crossover_bytes = fit.alpha_s * fit.bandwidth_Bps;
  fit.r_squared = line.r_squared;
  fit.weighting = options.weighting;
  fit.min_bytes = x.front();
  fit.max_bytes = x.back();
  fit.excluded_sizes = static_cast<std::int64_t>(outside.size());
  set_residuals(fit.points, [&](double bytes) { return fit.alpha_s + bytes / fit.bandwidth_Bps; });
  if (!std::isfinite(fit.alpha_s) || !std::isfinite(fit.bandwidth_Bps) ||
      !std::isfinite(fit.crossover_bytes) || !std::isfinite(fit.r_squared)) {
    throw InputError(fmt::format("the fit over {} gives alpha {:g} s and bandwidth {:g} B/s, "
                                 "beyond what a double holds: these are not measured times",
                                 span, fit.alpha_s, fit.bandwidth_Bps));
  }
  return fit;
}

namespace {

// "+77%", "-37%": a relative residual with its sign.
std::string signed_percent(double fraction) { return fmt::format("{:+.0f}%", 100 * fraction); }

// The longest run of consecutive points whose relative residuals share a sign and each exceed
// kRunResidualFloor: [first, first + length).
struct ResidualRun {
  std::size_t first = 0;
  std::size_t length = 0;
};

ResidualRun longest_same_sign_run(const std::vector<FitPoint>& points) {
  ResidualRun best;
  ResidualRun current;
  int current_sign = 0;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const double r = points[i].relative_residual;
    const int sign = r > kRunResidualFloor ? 1 : r < -kRunResidualFloor ? -1 : 0;
    if (sign != 0 && sign == current_sign) {
      ++current.length;
    } else {
      current = {i, sign != 0 ? 1u : 0u};
      current_sign = sign;
    }
    if (current.length > best.length) best = current;
  }
  return best;
}

// The first and last point of the longest same-sign run when it is at least
// kLongResidualRun long: the run a warning names.
struct RunEnds {
  std::size_t length = 0;
  const FitPoint* first = nullptr;
  const FitPoint* last = nullptr;
};
std::optional<RunEnds> long_same_sign_run(const std::vector<FitPoint>& points) {
  const ResidualRun run = longest_same_sign_run(points);
  if (run.length < kLongResidualRun) return std::nullopt;
  return RunEnds{run.length, &points[run.first], &points[run.first + run.length - 1]};
}

}  // namespace

std::vector<std::string> fit_quality_warnings(const HockneyFit& fit) {
  std::vector<std::string> warnings;
  if (fit.points.empty()) return warnings;
  if (fit.r_squared < kPoorFitRSquared) {
    const auto [lo, hi] = std::minmax_element(
        fit.points.begin(), fit.points.end(), [](const FitPoint& a, const FitPoint& b) {
          return a.relative_residual < b.relative_residual;
        });
    warnings.push_back(fmt::format(
        "poor fit: R^2 {:.2f} is below {:.2f}, residuals from {} to {}: the line alpha + m / "
        "bandwidth does not describe these sizes, and a fabric written from it misprices "
        "messages; fit one size regime at a time",
        fit.r_squared, kPoorFitRSquared, signed_percent(lo->relative_residual),
        signed_percent(hi->relative_residual)));
  }
  if (const std::optional<RunEnds> run = long_same_sign_run(fit.points)) {
    warnings.push_back(fmt::format(
        "the residuals keep one sign over {} consecutive sizes, {} .. {} ({} .. {}; at least "
        "{} sizes beyond {:.0f}% are flagged): the times bend away from a straight line there "
        "(a protocol switch, or two links in one fit); fit the sizes on each side apart",
        run->length, format_bytes(run->first->bytes), format_bytes(run->last->bytes),
        signed_percent(run->first->relative_residual),
        signed_percent(run->last->relative_residual), kLongResidualRun,
        100 * kRunResidualFloor));
  }
  return warnings;
}

GammaFit fit_gamma(std::span<const ReductionPoint> points, std::string_view what) {
  std::map<double, std::vector<double>> by_size;
  GammaFit fit;
  fit.what = std::string(what);
  for (const ReductionPoint& p : points) {
    if (p.bytes > 0 && p.time_median_s > 0) by_size[p.bytes].push_back(p.time_median_s);
    fit.ranks = std::max(fit.ranks, p.ranks);
  }
  if (by_size.size() < 2) {
    throw InputError(fmt::format(
        "a {} rate needs at least 2 sizes above 0 bytes, got {} (scalewall-mpi reduce "
        "sweeps 1 KiB to 64 MiB)",
        what, by_size.size()));
  }
  fit.points = median_per_size(by_size);
  // Through the origin: one column, the size; gamma = sum(b t) / sum(b^2).
  DesignRows rows;
  std::vector<double> y;
  for (const FitPoint& p : fit.points) {
    rows.push_back({p.bytes});
    y.push_back(p.measured_s);
  }
  constexpr std::size_t kSizeColumn[] = {0};
  const std::optional<std::vector<double>> slope = least_squares(rows, y, kSizeColumn);
  SCALEWALL_CHECK(slope.has_value());  // two sizes above 0: never singular
  fit.gamma_s_per_byte = slope->front();
  fit.rate_Bps = 1.0 / fit.gamma_s_per_byte;
  set_residuals(fit.points, [&](double bytes) { return fit.gamma_s_per_byte * bytes; });
  double mean = 0;
  for (const FitPoint& f : fit.points) mean += f.measured_s;
  mean /= static_cast<double>(fit.points.size());
  double ss_res = 0;
  double ss_tot = 0;
  for (const FitPoint& f : fit.points) {
    ss_res += f.residual_s * f.residual_s;
    ss_tot += (f.measured_s - mean) * (f.measured_s - mean);
  }
  fit.r_squared = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
  split_gamma_regimes(fit);
  return fit;
}

std::vector<std::string> gamma_fit_warnings(const GammaFit& fit) {
  std::vector<std::string> warnings;
  const bool per_byte = fit.what != "reduction";
  if (fit.r_squared < kPoorFitRSquared) {
    warnings.push_back(fmt::format(
        "poor {} fit: R^2 {:.2f} is below {:.2f}: one rate {} does not describe these "
        "sizes ({})",
        fit.what, fit.r_squared, kPoorFitRSquared, per_byte ? "per byte" : "gamma",
        fit.what == "alloc" ? "above its mapping threshold the allocator maps fresh pages, "
                              "each faulted in on its first touch"
                            : "the caches give small buffers a faster rate than memory gives "
                              "large ones"));
  }
  if (const std::optional<RunEnds> run = long_same_sign_run(fit.points)) {
    warnings.push_back(fmt::format(
        "the {} residuals keep one sign over {} consecutive sizes, {} .. {} ({} .. {}): "
        "the rate changes there (a cache level); {} holds for the largest sizes",
        fit.what, run->length, format_bytes(run->first->bytes), format_bytes(run->last->bytes),
        signed_percent(run->first->relative_residual),
        signed_percent(run->last->relative_residual), per_byte ? "one rate" : "gamma"));
  }
  return warnings;
}

LocalRateFits fit_local_rates(const MeasurementSet& set) {
  const auto fit = [](const std::vector<ReductionPoint>& points,
                      std::string_view what) -> std::optional<GammaFit> {
    if (points.empty()) return std::nullopt;
    return fit_gamma(points, what);
  };
  LocalRateFits fits{fit(set.reductions, "reduction"), fit(set.copies, "copy"),
                     fit(set.allocs, "alloc"), fit(set.sent_reductions, "sent reduction"),
                     fit(set.sent_exchanges, "sent exchange")};
  for (const auto* f : {&fits.gamma, &fits.copy, &fits.alloc, &fits.sent_reduction,
                        &fits.sent_exchange}) {
    if (!f->has_value()) continue;
    fits.ranks_per_host = std::max(fits.ranks_per_host, (*f)->ranks);
    for (const FitPoint& p : (*f)->points) {
      if (fits.min_bytes == 0 || p.bytes < fits.min_bytes) fits.min_bytes = p.bytes;
    }
  }
  if (fits.ranks_per_host > 0) {
    // The passes' own runs say how many of their ranks shared a host.
    std::int64_t per_host = 0;
    for (const MeasurementRun& run : set.runs) {
      if (run.command == "reduce" && run.ranks_per_host) {
        per_host = std::max(per_host, *run.ranks_per_host);
      }
    }
    if (per_host > 0) fits.ranks_per_host = per_host;
  }
  return fits;
}

namespace {

// The fitted `figure` of value `value`, unless it lies outside `range`.
void require_fitted(std::string_view figure, double value, const ValueRange& range) {
  try {
    require_in_range(fmt::format("the fitted {}", figure), value, range);
  } catch (const InputError& e) {
    throw InputError(fmt::format("{} that a fabric holds (a fabric file or report written "
                                 "from it could not be read back)",
                                 e.what()));
  }
}

void require_link_figures(const PiecewiseFit& fit, std::string_view link) {
  require_fitted(fmt::format("{}alpha", link), fit.single.alpha_s, kLinkLatency);
  require_fitted(fmt::format("{}bandwidth", link), fit.single.bandwidth_Bps, kScenarioRate);
  for (const RegimeFit& r : fit.regimes) {
    const std::string regime = fmt::format(" (the regime from {})", format_bytes(r.from_bytes));
    require_fitted(fmt::format("{}alpha{}", link, regime), r.fit.alpha_s, kLinkLatency);
    require_fitted(fmt::format("{}bandwidth{}", link, regime), r.fit.bandwidth_Bps,
                   kScenarioRate);
    require_fitted(fmt::format("{}regime start", link), r.from_bytes, kScenarioBytes);
  }
}

void require_rate_figures(const GammaFit& fit) {
  const std::string what = fit.what == "reduction" ? "gamma (reduction cost per byte)"
                                                   : fmt::format("{} cost per byte", fit.what);
  require_fitted(what, fit.gamma_s_per_byte, kScenarioSecondsPerByte);
  for (const GammaRegimeFit& r : fit.regimes) {
    require_fitted(fmt::format("{} (the regime from {})", what, format_bytes(r.from_bytes)),
                   r.gamma_s_per_byte, kScenarioSecondsPerByte);
  }
}

}  // namespace

void require_fabric_figures(const LinkFits& links, const std::optional<LogGPFit>& loggp,
                            const LocalRateFits& local) {
  for (const auto& [fit, link] :
       {std::pair{&links.link, links.two_level ? "inter-node " : ""},
        std::pair{&links.intra, "intra-node "}, std::pair{&links.exchange, "exchange "},
        std::pair{&links.intra_exchange, "intra-node exchange "}}) {
    if (fit->has_value()) require_link_figures(**fit, link);
  }
  if (loggp && loggp->gap_s) require_fitted("LogGP gap g", *loggp->gap_s, kScenarioSeconds);
  for (const std::optional<GammaFit>* fit :
       {&local.gamma, &local.copy, &local.alloc, &local.sent_reduction, &local.sent_exchange}) {
    if (fit->has_value()) require_rate_figures(**fit);
  }
  require_fitted("smallest local pass", local.min_bytes, kScenarioBytes);
}

Topology with_local_rates(Topology fabric, const LocalRateFits& fits) {
  if (fits.gamma) {
    fabric.gamma_s_per_byte = fits.gamma->first_gamma();
    fabric.gamma_above = fits.gamma->regimes_above();
  }
  if (fits.copy) fabric.copy = fits.copy->copy_cost();
  if (fits.alloc) fabric.alloc = fits.alloc->copy_cost();
  if (fits.sent_reduction) fabric.sent_reduction = fits.sent_reduction->copy_cost();
  if (fits.sent_exchange) fabric.sent_exchange = fits.sent_exchange->copy_cost();
  if (fits.ranks_per_host > 0) fabric.working_set_ranks = fits.ranks_per_host;
  if (fits.min_bytes > 0) fabric.local_min_bytes = fits.min_bytes;
  return fabric;
}

LogGPFit fit_loggp(const HockneyFit& hockney, std::span<const StreamPoint> stream) {
  LogGPFit fit;
  fit.overhead_note =
      "not identifiable: o needs the sender's own time per message (time inside MPI_Isend), "
      "which none of these measurements records; alpha = L + 2o is fitted as a whole";
  const StreamPoint* smallest = nullptr;
  for (const StreamPoint& p : stream) {
    if (p.bytes > 0 && p.bandwidth_Bps > 0) {
      if (smallest == nullptr || p.bytes < smallest->bytes) smallest = &p;
      if (!fit.streaming_bandwidth_Bps || p.bandwidth_Bps > *fit.streaming_bandwidth_Bps) {
        fit.streaming_bandwidth_Bps = p.bandwidth_Bps;
      }
    }
  }
  if (smallest == nullptr) {
    fit.gap_note =
        "not identifiable without streaming data: an osu_bw log gives g from its smallest "
        "messages";
    return fit;
  }
  const double interval_s = smallest->bytes / smallest->bandwidth_Bps;
  const double byte_term_s = smallest->bytes / hockney.bandwidth_Bps;
  if (byte_term_s > kMaxGapByteShare * interval_s) {
    fit.gap_note = fmt::format(
        "not identifiable: the smallest streamed size ({}) already spends {:.0f}% of its "
        "{} interval on bytes; stream smaller messages",
        format_bytes(smallest->bytes), 100.0 * byte_term_s / interval_s,
        format_seconds(interval_s));
    return fit;
  }
  fit.gap_s = interval_s;
  fit.gap_note = fmt::format(
      "m / bw at the smallest streamed size ({}): the interval between messages in flight, "
      "max(g, o), plus the window's share of one round trip",
      format_bytes(smallest->bytes));
  return fit;
}

namespace {

// A line through the largest sizes needs two of them; with fewer the asymptote is the largest
// size's bus bandwidth.
constexpr std::size_t kMinAsymptoteSizes = 2;

// The bus bandwidth the fit's sizes tend to: 1 / slope of time against bytes x factor over the
// larger half of the sizes that move data, or the largest size's when no line fits.
void set_asymptote(BusBandwidthFit& fit, double factor) {
  std::vector<const BusBandwidthPoint*> moving;
  for (const auto& p : fit.points) {
    if (p.bytes > 0 && p.time_s > 0) moving.push_back(&p);
  }
  if (moving.empty()) return;
  const std::size_t take = (moving.size() + 1) / 2;
  if (take >= kMinAsymptoteSizes && factor > 0) {
    std::vector<double> x;
    std::vector<double> y;
    for (std::size_t i = moving.size() - take; i < moving.size(); ++i) {
      x.push_back(moving[i]->bytes * factor);
      y.push_back(moving[i]->time_s);
    }
    const Line line = fit_line(x, y);
    if (line.slope > 0) {
      fit.asymptote_Bps = 1.0 / line.slope;
      fit.asymptote_method = fmt::format("least squares over the {} largest sizes", take);
    }
  }
  if (!fit.asymptote_Bps) {
    fit.asymptote_Bps = moving.back()->busbw_Bps;
    fit.asymptote_method = "largest size";
  }
}

// Why a measured point's time is no measurement of its op, or nothing when it is one: its
// result did not match the library's, or (with scalewall-mpi's check) was not the expected sum.
std::optional<std::string> wrong_result_reason(const CollectivePoint& p) {
  if (!p.verified) {
    return std::string("the result was not verified (a wrong result's time is no measurement "
                       "of the algorithm)");
  }
  if (p.wrong && *p.wrong > 0) {
    return fmt::format("{} wrong {}: the result was not the expected sum", *p.wrong,
                       *p.wrong == 1 ? "element" : "elements");
  }
  return std::nullopt;
}

}  // namespace

std::vector<BusBandwidthFit> fit_bus_bandwidth(std::span<const CollectivePoint> points,
                                               const FitOptions& options,
                                               std::vector<std::string>* warnings) {
  require_range(options);
  // Keyed by series first: two series of one op at one rank count are two fits.
  using Key = std::tuple<std::size_t, Op, MeasuredAlgorithm, std::int64_t>;
  std::vector<Key> order;
  std::map<Key, std::map<double, std::vector<double>>> groups;
  std::map<Key, bool> warned;
  for (const CollectivePoint& p : points) {
    const Key key{p.series, p.op, p.algorithm, p.ranks};
    if (p.ranks < 2) {
      if (!warned[key] && warnings != nullptr) {
        warnings->push_back(fmt::format(
            "{} {} at {} rank(s): no bus bandwidth ({})", op_name(p.op), p.algorithm.name(), p.ranks,
            p.ranks == 0 ? fmt::format("the rank count is unknown; give {}",
                                       setting_words(Setting::kRankCount))
                         : std::string("one rank moves nothing")));
      }
      warned[key] = true;
      continue;
    }
    if (std::optional<std::string> why = wrong_result_reason(p)) {
      if (warnings != nullptr) {
        warnings->push_back(fmt::format("{} {} at {} ranks, {}: left out, {}", op_name(p.op),
                                        p.algorithm.name(), p.ranks, format_bytes(p.bytes),
                                        *why));
      }
      continue;
    }
    if (!in_range(p.bytes, options)) continue;
    if (groups.find(key) == groups.end()) order.push_back(key);
    groups[key][p.bytes].push_back(p.time_median_s);
  }
  std::vector<BusBandwidthFit> fits;
  for (const Key& key : order) {
    BusBandwidthFit fit;
    std::tie(fit.series, fit.op, fit.algorithm, fit.ranks) = key;
    const double factor = busbw_factor(fit.op, fit.ranks);
    for (const auto& [bytes, times] : groups[key]) {
      BusBandwidthPoint p;
      p.bytes = bytes;
      p.samples = static_cast<std::int64_t>(times.size());
      p.time_s = median(times);
      p.algbw_Bps = p.time_s > 0 && bytes > 0 ? bytes / p.time_s : 0.0;
      p.busbw_Bps = p.algbw_Bps * factor;
      fit.points.push_back(p);
    }
    set_asymptote(fit, factor);
    fits.push_back(std::move(fit));
  }
  return fits;
}

std::int64_t assign_unknown_ranks(MeasurementSet& set, std::int64_t ranks) {
  if (ranks < 1) throw InputError(fmt::format("a rank count must be >= 1, not {}", ranks));
  std::int64_t changed = 0;
  for (CollectivePoint& p : set.collectives) {
    if (p.ranks != 0) continue;
    p.ranks = ranks;
    if (p.bytes_per_peer) {
      // The log's per-peer size becomes nccl-tests' size, what one rank sends in all.
      p.bytes *= static_cast<double>(ranks);
      p.algbw_Bps = p.time_median_s > 0 ? p.bytes / p.time_median_s : 0.0;
      p.bytes_per_peer = false;
    }
    p.busbw_Bps = p.algbw_Bps * busbw_factor(p.op, ranks);
    ++changed;
  }
  for (const CollectivePoint& p : set.collectives) {
    if (p.series < set.series.size() && set.series[p.series].ranks == 0) {
      set.series[p.series].ranks = ranks;
    }
  }
  return changed;
}

void assign_ranks_per_node(MeasurementSet& set, std::int64_t ranks_per_node) {
  if (ranks_per_node < 1) {
    throw InputError(fmt::format("ranks per node must be >= 1, not {}", ranks_per_node));
  }
  for (MeasurementSeries& s : set.series) {
    s.ranks_per_node = ranks_per_node;
    s.nodes.reset();
    if (s.ranks >= ranks_per_node && s.ranks % ranks_per_node == 0) {
      s.nodes = s.ranks / ranks_per_node;
    }
  }
}

namespace {

// What must agree for two series to be pooled: the ops and rank counts they time, whether
// they hold ping-pong times, and their layout.
struct SeriesShape {
  std::set<std::pair<Op, std::int64_t>> collectives;
  bool pingpong = false;
  std::optional<std::int64_t> nodes;
  std::optional<std::int64_t> ranks_per_node;
  friend bool operator==(const SeriesShape&, const SeriesShape&) = default;
};

std::vector<SeriesShape> series_shapes(const MeasurementSet& set) {
  std::vector<SeriesShape> shapes(set.series.size());
  for (std::size_t i = 0; i < set.series.size(); ++i) {
    shapes[i].nodes = set.series[i].nodes;
    shapes[i].ranks_per_node = set.series[i].ranks_per_node;
  }
  for (const CollectivePoint& p : set.collectives) {
    if (p.series < shapes.size()) shapes[p.series].collectives.insert({p.op, p.ranks});
  }
  for (const PingPongPoint& p : set.pingpong) {
    if (p.series < shapes.size()) shapes[p.series].pingpong = true;
  }
  return shapes;
}

// "all-reduce at 8 ranks" for a shape's collectives, "ping-pong" for its ping-pong times.
std::string shape_words(const SeriesShape& shape) {
  std::vector<std::string> words;
  for (const auto& [op, ranks] : shape.collectives) {
    words.push_back(ranks > 0 ? fmt::format("{} at {} ranks", op_name(op), ranks)
                              : fmt::format("{} at an unknown rank count", op_name(op)));
  }
  if (shape.pingpong) words.emplace_back("ping-pong");
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

}  // namespace

std::vector<std::string> series_overlaps(const MeasurementSet& set) {
  const std::vector<SeriesShape> shapes = series_shapes(set);
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    for (std::size_t j = i + 1; j < shapes.size(); ++j) {
      std::set<std::pair<Op, std::int64_t>> both;
      std::set_intersection(shapes[i].collectives.begin(), shapes[i].collectives.end(),
                            shapes[j].collectives.begin(), shapes[j].collectives.end(),
                            std::inserter(both, both.end()));
      if (both.empty()) continue;
      lines.push_back(fmt::format(
          "'{}' and '{}' both time {}: kept apart as two series (--pool pools series that "
          "agree in op, ranks and layout)",
          set.series[i].label, set.series[j].label, shape_words({both, false, {}, {}})));
    }
  }
  return lines;
}

std::vector<std::string> pool_series(MeasurementSet& set) {
  const std::vector<SeriesShape> shapes = series_shapes(set);
  std::vector<std::size_t> into(shapes.size());
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    into[i] = i;
    for (std::size_t j = 0; j < i; ++j) {
      if (into[j] != j || !(shapes[j] == shapes[i])) continue;
      into[i] = j;
      lines.push_back(fmt::format("'{}' pooled with '{}' ({})", set.series[i].label,
                                  set.series[j].label, shape_words(shapes[i])));
      set.series[j].label += " + " + set.series[i].label;
      break;
    }
  }
  for (CollectivePoint& p : set.collectives) {
    if (p.series < into.size()) p.series = into[p.series];
  }
  for (PingPongPoint& p : set.pingpong) {
    if (p.series < into.size()) p.series = into[p.series];
  }
  for (PingPongPoint& p : set.exchanges) {
    if (p.series < into.size()) p.series = into[p.series];
  }
  return lines;
}

namespace {

// The labels of `series` (indices into set.series), quoted and joined: "'a', 'b'".
std::string quoted_series(const MeasurementSet& set, const std::vector<std::size_t>& series) {
  std::string names;
  for (const std::size_t i : series) {
    names += fmt::format("{}'{}'", names.empty() ? "" : ", ", series_label(set, i));
  }
  return names;
}

// The distinct series of the points that `keep` accepts, in order of first appearance.
template <typename Point, typename Keep>
std::vector<std::size_t> series_of(const std::vector<Point>& points, Keep keep) {
  std::vector<std::size_t> series;
  for (const Point& p : points) {
    if (keep(p) && std::find(series.begin(), series.end(), p.series) == series.end()) {
      series.push_back(p.series);
    }
  }
  return series;
}

// The ring's steps for `op` on `ranks`, or 0 when the ring does not run it.
std::int64_t ring_steps_of(Op op, std::int64_t ranks) {
  switch (op) {
    case Op::kAllreduce:
      return 2 * (ranks - 1);
    case Op::kReduceScatter:
    case Op::kAllgather:
      return ranks - 1;
    default:
      return 0;
  }
}

bool ring_equivalent(const CollectivePoint& p) {
  const bool ring = p.algorithm.is_library() ||
                    p.algorithm == MeasuredAlgorithm::model({Algorithm::kRing, Algorithm::kRing});
  return ring && p.ranks >= 2 && ring_steps_of(p.op, p.ranks) > 0 && p.verified &&
         p.time_median_s > 0 && p.bytes >= static_cast<double>(p.ranks);
}

}  // namespace

namespace {

// `points` (set.pingpong or set.exchanges) when they are of one series. Otherwise throws
// InputError: "N <kind> series (...): <fitted> to one series; give one of them, or --pool to
// fit one <what> over every series that agrees in layout".
std::vector<PingPongPoint> one_series(const MeasurementSet& set,
                                      const std::vector<PingPongPoint>& points,
                                      std::string_view kind, std::string_view fitted,
                                      std::string_view what) {
  const std::vector<std::size_t> series =
      series_of(points, [](const PingPongPoint&) { return true; });
  if (series.size() > 1) {
    throw InputError(fmt::format(
        "{} {} series ({}): {} to one series; give one of them, or --pool to fit {} over "
        "every series that agrees in layout",
        series.size(), kind, quoted_series(set, series), fitted, what));
  }
  return points;
}

}  // namespace

std::vector<PingPongPoint> link_points(const MeasurementSet& set) {
  return one_series(set, set.pingpong, "ping-pong", "one link is fitted", "one link");
}

std::vector<PingPongPoint> exchange_points(const MeasurementSet& set) {
  return one_series(set, set.exchanges, "exchange", "one link's exchanges are fitted", "one");
}

std::vector<PingPongPoint> ring_equivalent_points(const MeasurementSet& set) {
  const std::vector<std::size_t> series = series_of(set.collectives, ring_equivalent);
  if (series.empty()) {
    throw InputError(
        "no collective series to fit a ring-equivalent link to: it needs all-reduce, "
        "reduce-scatter or all-gather times (the library's call or the ring) of 2 or more "
        "ranks, at sizes of at least one byte per rank");
  }
  if (series.size() > 1) {
    throw InputError(fmt::format(
        "{} collective series ({}): one ring-equivalent link is fitted to one series; give "
        "one of them, or --pool to pool the series that agree in op, ranks and layout",
        series.size(), quoted_series(set, series)));
  }
  std::vector<PingPongPoint> out;
  for (const CollectivePoint& p : set.collectives) {
    if (!ring_equivalent(p) || p.series != series.front()) continue;
    const auto steps = static_cast<double>(ring_steps_of(p.op, p.ranks));
    PingPongPoint q;
    q.series = p.series;
    q.from = 0;
    q.to = 1;
    q.bytes = p.bytes / static_cast<double>(p.ranks);
    q.iterations = p.iterations;
    // Logs that print one time per size (nccl-tests) leave min and max 0: the median then.
    q.one_way_median_s = p.time_median_s / steps;
    q.one_way_min_s = p.time_min_s > 0 ? p.time_min_s / steps : q.one_way_median_s;
    q.one_way_max_s = p.time_max_s > 0 ? p.time_max_s / steps : q.one_way_median_s;
    out.push_back(q);
  }
  return out;
}

std::string_view validation_regime_name(ValidationRegime regime) {
  switch (regime) {
    case ValidationRegime::kLatencyBound:
      return "latency-bound";
    case ValidationRegime::kBandwidthBound:
      return "bandwidth-bound";
  }
  SCALEWALL_CHECK(false && "unknown ValidationRegime");
  return {};
}

namespace {

// The error for a file with nothing to validate quotes the first three reasons points were left
// out: enough to show the cause, without a message as long as the file.
constexpr std::size_t kQuotedSkipReasons = 3;

// One measured (series, op, algorithm, ranks, size) of validate_collectives: two series are
// never pooled into one point.
using ValidationKey = std::tuple<std::size_t, Op, MeasuredAlgorithm, std::int64_t, double>;

// The measured times per key, keys in the order they first appear.
struct MeasuredTimes {
  std::vector<ValidationKey> order;
  std::map<ValidationKey, std::vector<double>> times;
  std::map<ValidationKey, double> element_bytes;  // the first of its points' that says, else 0
};

ValidationSummary summarise(const std::vector<ValidationPoint>& points, std::string group,
                            std::string name, const std::vector<std::size_t>& members) {
  ValidationSummary s;
  s.group = std::move(group);
  s.name = std::move(name);
  s.points = static_cast<std::int64_t>(members.size());
  std::vector<double> errors;
  for (const std::size_t i : members) {
    const double e = std::fabs(points[i].relative_error);
    errors.push_back(e);
    if (errors.size() == 1 || e > s.worst_abs_error) {
      s.worst_abs_error = e;
      s.worst_error = points[i].relative_error;
      s.worst_index = i;
    }
  }
  s.median_abs_error = median(errors);
  return s;
}

// Why a measured point is not scored, or nothing when it is; the reason does not name the
// point (SkipTally says which points it covers).
std::optional<std::string> unscored_reason(const CollectivePoint& p) {
  if (std::optional<std::string> why = wrong_result_reason(p)) return why;
  if (p.ranks == 0) {
    return fmt::format("the rank count is unknown (give {})", setting_words(Setting::kRankCount));
  }
  if (p.ranks == 1) return std::string("one rank exchanges nothing; the model predicts zero");
  // A hand-written algorithm sends its zero-length messages, which pay the latency terms the
  // model charges; only the library's call returns without communicating.
  if (p.bytes == 0 && p.op != Op::kBarrier && p.algorithm.is_library()) {
    return fmt::format(
        "a zero-count {} returns without communicating (Open MPI returns from it at once "
        "when the count is 0), while the model charges its latency terms; not scored",
        mpi_call_name(p.op));
  }
  if (!(p.time_median_s > 0)) return std::string("the measured time is zero");
  return std::nullopt;
}

// At most this many distinct rank counts or sizes are listed in a reason; more are shown as
// their range and count, so that a reason stays one readable line however long the sweep.
constexpr std::size_t kListedValues = 5;

// "2, 4 and 8" (`unit` follows: "2, 4 and 8 ranks"), or "2 .. 1024 ranks (9 counts)".
template <typename T, typename Show>
std::string value_words(std::vector<T> values, Show show, std::string_view unit_one,
                        std::string_view unit_many, std::string_view many) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  // "1 rank", "4 ranks": the singular only for the one value 1.
  const std::string_view unit =
      values.size() == 1 && values.front() == T{1} ? unit_one : unit_many;
  if (values.size() > kListedValues) {
    return fmt::format("{} .. {}{} ({} {})", show(values.front()), show(values.back()), unit,
                       values.size(), many);
  }
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += i + 1 == values.size() ? " and " : ", ";
    out += show(values[i]);
  }
  return out + std::string(unit);
}

// Points left out, one group per (op, algorithm, reason), in order of first appearance.
class SkipTally {
 public:
  void add(Op op, const MeasuredAlgorithm& algorithm, std::string reason, std::int64_t ranks,
           double bytes, std::int64_t points) {
    auto it = std::find_if(groups_.begin(), groups_.end(), [&](const Group& g) {
      return g.op == op && g.algorithm == algorithm && g.reason == reason;
    });
    if (it == groups_.end()) {
      groups_.push_back({op, algorithm, std::move(reason), {}, {}, 0});
      it = std::prev(groups_.end());
    }
    it->ranks.push_back(ranks);
    it->sizes.push_back(bytes);
    it->points += points;
  }
  // One line per group into v.skipped, and the points into v.points_skipped.
  void write(Validation& v) const {
    for (const Group& g : groups_) {
      // Rank count 0 is a log that does not say it.
      const std::string ranks =
          g.ranks == std::vector<std::int64_t>(g.ranks.size(), 0)
              ? std::string("an unknown rank count")
              : value_words(
                    g.ranks, [](std::int64_t n) { return std::to_string(n); }, " rank",
                    " ranks", "counts");
      const std::string sizes = value_words(
          g.sizes, [](double m) { return format_bytes(m); }, "", "", "sizes");
      v.skipped.push_back(fmt::format("{} {}, {} point{} at {}, {}: {}", op_name(g.op),
                                      g.algorithm.name(), g.points, g.points == 1 ? "" : "s",
                                      ranks, sizes, g.reason));
      v.points_skipped += g.points;
    }
  }

 private:
  struct Group {
    Op op;
    MeasuredAlgorithm algorithm;
    std::string reason;
    std::vector<std::int64_t> ranks;
    std::vector<double> sizes;
    std::int64_t points;
  };
  std::vector<Group> groups_;
};

// The scored points' times grouped by key; the others go to `skipped` with why.
MeasuredTimes group_measured(std::span<const CollectivePoint> measured, SkipTally& skipped) {
  MeasuredTimes m;
  for (const CollectivePoint& p : measured) {
    if (std::optional<std::string> why = unscored_reason(p)) {
      skipped.add(p.op, p.algorithm, std::move(*why), p.ranks, p.bytes, 1);
      continue;
    }
    const ValidationKey key{p.series, p.op, p.algorithm, p.ranks, p.bytes};
    if (m.times.find(key) == m.times.end()) m.order.push_back(key);
    m.times[key].push_back(p.time_median_s);
    double& element = m.element_bytes[key];
    if (element == 0) element = p.element_bytes;
  }
  return m;
}

// A key's modelled cost: the model's algorithm, or NCCL's pick for the library's call.
struct PricedPoint {
  CollectiveCost cost;
  std::optional<NcclCost> nccl;
  std::string rules;  // the library rules that picked cost.algorithm ("ompi"); empty if none
};

// The fixed rules that price the library's call of `series` under `selector`, if any.
std::optional<Selector> library_rules(ValidationSelector selector,
                                      const MeasurementSeries* series) {
  switch (selector) {
    case ValidationSelector::kOpenMpi:
      return Selector::kOpenMpi;
    case ValidationSelector::kMpich:
      return Selector::kMpich;
    case ValidationSelector::kAuto:
      if (series == nullptr) return std::nullopt;
      if (series->mpi_library.starts_with("Open MPI")) return Selector::kOpenMpi;
      if (series->mpi_library.starts_with("MPICH")) return Selector::kMpich;
      return std::nullopt;
    case ValidationSelector::kNccl:
    case ValidationSelector::kMpi:
      break;
  }
  return std::nullopt;
}

// Whether the library's call of `op` on `topology` is priced by NCCL's pick.
bool priced_by_nccl(Op op, const Topology& topology, ValidationSelector selector) {
  switch (selector) {
    case ValidationSelector::kMpi:
    case ValidationSelector::kOpenMpi:
    case ValidationSelector::kMpich:
      return false;
    case ValidationSelector::kNccl:
      if (!nccl_is_default(op, topology)) {
        throw InputError(fmt::format(
            "the NCCL selector prices {} on a fabric whose ranks are GPUs (ranks = \"gpu\"); "
            "fabric {} {}",
            op_name(op), topology.name,
            topology.rank_kind == RankKind::kGpu ? "has GPU ranks, but NCCL does not choose for this op"
                               : "does not say its ranks are GPUs"));
      }
      return true;
    case ValidationSelector::kAuto:
      break;
  }
  return nccl_is_default(op, topology);
}

}  // namespace

std::optional<NcclRelease> series_nccl_release(const MeasurementSeries& series) {
  if (series.nccl_version.empty()) return std::nullopt;
  try {
    return parse_nccl_release(series.nccl_version);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

namespace {

// The library's call as NCCL prices it, in CollectiveCost's terms, with the kernel launches
// of a run whose threads drive several GPUs each (the series' gpus_per_thread), picked by the
// NCCL release the series states where the fabric names none.
PricedPoint nccl_priced(Op op, double bytes, const Topology& topology,
                        const MeasurementSeries* series) {
  PricedPoint p;
  NcclFabric fabric = nccl_fabric(topology);
  if (series != nullptr) {
    fabric.gpus_per_thread = std::min(series->gpus_per_thread, topology.ranks());
    if (!fabric.release) fabric.release = series_nccl_release(*series);
  }
  p.nccl = nccl_choice(op, bytes, fabric);
  p.cost.op = op;
  p.cost.ranks = topology.ranks();
  p.cost.bytes = bytes;
  p.cost.latency_s = p.nccl->latency_s;
  p.cost.bandwidth_s = p.nccl->bandwidth_s;
  p.cost.total_s = p.nccl->total_s;
  return p;
}

// The model's cost of one key on the fabric scaled to its ranks, or nothing (with why in
// `skipped`, for the key's `points` measured points).
// The fabric laid out as the series ran: its ranks per node, when the log says, in place of
// the fabric's own (a fabric with an explicit placement keeps its own).
Topology laid_out(const Topology& fabric, std::int64_t ranks, const MeasurementSeries* series) {
  if (series == nullptr || !series->ranks_per_node || fabric.placement == Placement::kExplicit) {
    return scaled_topology(fabric, ranks);
  }
  Topology t = fabric;
  t.ranks_per_node = std::min(*series->ranks_per_node, ranks);
  t.nodes = 1;
  return scaled_topology(t, ranks);
}

// How one key is priced: the fabric, the cost options, the selector, the key's series.
struct PricingContext {
  const Topology& fabric;
  const CostOptions& options;
  ValidationSelector selector;
  const MeasurementSeries* series;
  double element_bytes;  // of the key's calls, 0 when unknown (the rules then count floats)
};

// Bytes per element when a log does not say: a float, as nccl-tests' and OSU's defaults.
constexpr double kDefaultElementBytes = 4.0;

std::optional<PricedPoint> modelled_cost(const ValidationKey& key, std::int64_t points,
                                         const PricingContext& how, SkipTally& skipped) {
  const auto& [index, op, algorithm, ranks, bytes] = key;
  // The calls' own element size, where their file says, rounds each step to whole elements.
  CostOptions options = how.options;
  options.element_bytes = how.element_bytes;
  Topology topology;
  try {
    topology = laid_out(how.fabric, ranks, how.series);
  } catch (const InputError& e) {
    skipped.add(op, algorithm, fmt::format("the fabric does not fit {} ranks: {}", ranks, e.what()),
                ranks, bytes, points);
    return std::nullopt;
  }
  std::optional<CollectiveCost> cost;
  std::string rules;
  if (algorithm.is_library()) {
    if (priced_by_nccl(op, topology, how.selector)) {
      return nccl_priced(op, bytes, topology, how.series);
    }
    if (const std::optional<Selector> library = library_rules(how.selector, how.series)) {
      const LibraryChoice choice = library_choice(
          *library, op, ranks, bytes,
          how.element_bytes > 0 ? how.element_bytes : kDefaultElementBytes);
      if (!choice.modelled) {
        skipped.add(op, algorithm,
                    fmt::format("{} pick {}, which the model has no counterpart for",
                                selector_description(*library), choice.library_algorithm),
                    ranks, bytes, points);
        return std::nullopt;
      }
      rules = std::string(selector_name(*library));
      cost = with_work_buffers(collective_cost(op, *choice.modelled, bytes, topology, options),
                               choice.work_buffers, options.alloc,
                               options.local_min_bytes);
    } else {
      const auto specs = applicable_algorithms(op, topology);
      if (!specs.empty()) cost = rank_algorithms(op, specs, bytes, topology, options).front();
    }
  } else {
    const std::optional<AlgorithmSpec> spec = algorithm.spec();
    if (!spec || !implements(op, *spec)) {
      skipped.add(op, algorithm,
                  spec ? "the algorithm does not implement this op in the model"
                       : "not an algorithm the model has",
                  ranks, bytes, points);
      return std::nullopt;
    }
    cost = collective_cost(op, *spec, bytes, topology, options);
  }
  if (!cost) {
    skipped.add(op, algorithm, "the model has no algorithm for it on this fabric", ranks, bytes,
                points);
    return std::nullopt;
  }
  return PricedPoint{*cost, std::nullopt, rules};
}

// "nccl Ring/LL", and "+ 7 launches" for a run whose threads drive several GPUs.
std::string nccl_modelled_name(const NcclCost& c) {
  std::string name = fmt::format("nccl {}/{}", nccl_algorithm_name(c.algorithm),
                                 nccl_protocol_name(c.protocol));
  const long launches = std::lround(c.launch_s / kNcclGroupLaunchPerGpu_s);
  if (launches > 0) name += fmt::format(" + {} launch{}", launches, launches == 1 ? "" : "es");
  return name;
}

// One key's measured median beside the model's cost of it.
ValidationPoint validation_point(const ValidationKey& key, const std::vector<double>& times,
                                 const PricedPoint& priced) {
  const CollectiveCost& cost = priced.cost;
  ValidationPoint p;
  std::tie(p.series, p.op, p.algorithm, p.ranks, p.bytes) = key;
  p.modelled = cost.algorithm;
  p.nccl = priced.nccl;
  p.modelled_name = priced.nccl ? nccl_modelled_name(*priced.nccl)
                : priced.rules.empty() ? std::string(algorithm_name(cost.algorithm))
                                       : fmt::format("{} {}", priced.rules,
                                                     algorithm_name(cost.algorithm));
  p.rules = priced.rules;
  p.samples = static_cast<std::int64_t>(times.size());
  p.measured_s = median(times);
  p.spread = sample_spread(times);
  p.predicted_s = cost.total_s;
  p.latency_s = cost.latency_s;
  p.bandwidth_s = cost.bandwidth_s;
  p.relative_error = (p.predicted_s - p.measured_s) / p.measured_s;
  p.regime = cost.latency_s > cost.bandwidth_s + cost.compute_s
                 ? ValidationRegime::kLatencyBound
                 : ValidationRegime::kBandwidthBound;
  SCALEWALL_CHECK(std::isfinite(p.relative_error));
  return p;
}

// Refuses a validation with no point scored, quoting the first reasons points were left out.
void require_points(const Validation& v) {
  if (!v.points.empty()) return;
  std::string why;
  for (std::size_t i = 0; i < v.skipped.size() && i < kQuotedSkipReasons; ++i) {
    why += "; " + v.skipped[i];
  }
  throw InputError(fmt::format("no measured collective point left to validate{}",
                               why.empty() ? std::string(" (no collective measurements)") : why));
}

// One summary per value of key(point) in `group`, in order of first appearance.
template <typename Key, typename Name>
void add_group_summaries(Validation& v, const std::string& group, Key key, Name name) {
  std::vector<decltype(key(v.points.front()))> values;
  for (const auto& p : v.points) {
    if (std::find(values.begin(), values.end(), key(p)) == values.end()) values.push_back(key(p));
  }
  for (const auto& value : values) {
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < v.points.size(); ++i) {
      if (key(v.points[i]) == value) members.push_back(i);
    }
    v.summaries.push_back(summarise(v.points, group, name(value), members));
  }
}

// The summaries: all points, then per algorithm and per rank count (in order of appearance),
// then per regime (latency-bound first).
void add_summaries(Validation& v) {
  std::vector<std::size_t> all(v.points.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  v.summaries.push_back(summarise(v.points, "all", "all", all));
  add_group_summaries(
      v, "algorithm", [](const ValidationPoint& p) { return p.algorithm; },
      [](const MeasuredAlgorithm& a) { return a.name(); });
  add_group_summaries(
      v, "ranks", [](const ValidationPoint& p) { return p.ranks; },
      [](std::int64_t n) { return std::to_string(n); });
  const bool several_series = std::any_of(v.points.begin(), v.points.end(), [&](const auto& p) {
    return p.series != v.points.front().series;
  });
  if (several_series) {
    add_group_summaries(
        v, "series", [](const ValidationPoint& p) { return p.series_label; },
        [](const std::string& label) { return label; });
  }
  for (const ValidationRegime regime :
       {ValidationRegime::kLatencyBound, ValidationRegime::kBandwidthBound}) {
    std::vector<std::size_t> members;
    for (std::size_t i = 0; i < v.points.size(); ++i) {
      if (v.points[i].regime == regime) members.push_back(i);
    }
    if (!members.empty()) {
      v.summaries.push_back(
          summarise(v.points, "regime", std::string(validation_regime_name(regime)), members));
    }
  }
}

}  // namespace

Validation validate_collectives(std::span<const CollectivePoint> measured, const Topology& fabric,
                                const CostOptions& options,
                                std::span<const MeasurementSeries> series,
                                ValidationSelector selector) {
  require_valid(fabric);
  Validation v;
  SkipTally skipped;
  const MeasuredTimes m = group_measured(measured, skipped);
  for (const ValidationKey& key : m.order) {
    const std::vector<double>& times = m.times.at(key);
    const std::size_t index = std::get<0>(key);
    const MeasurementSeries* of = index < series.size() ? &series[index] : nullptr;
    const std::optional<PricedPoint> cost = modelled_cost(
        key, static_cast<std::int64_t>(times.size()),
        {fabric, options, selector, of, m.element_bytes.at(key)}, skipped);
    if (!cost) continue;
    v.points.push_back(validation_point(key, times, *cost));
    if (of != nullptr) v.points.back().series_label = of->label;
  }
  skipped.write(v);
  require_points(v);
  add_summaries(v);
  return v;
}

Topology calibrated_topology(const PiecewiseFit& fit, std::optional<double> gap_s,
                             std::int64_t nodes, const std::string& name) {
  if (nodes < 1) throw InputError(fmt::format("a fabric needs at least 1 node, not {}", nodes));
  Link link = fit.link();
  if (gap_s) {
    // LogGP in every regime: L = alpha, o = 0, the one measured gap.
    const Link one = link_from_loggp(link.alpha_s, 0.0, *gap_s, link.bandwidth_Bps);
    link = link.each_regime([&](LinkRegime& r) { r.gap_s = one.gap_s; });
  }
  require_valid(link);
  Topology t;
  t.name = name;
  t.nodes = nodes;
  t.ranks_per_node = 1;
  t.nics_per_node = 1;
  t.oversubscription = 1.0;
  t.placement = Placement::kPacked;
  t.intra = link;
  t.inter = link;
  t.nominal = false;
  require_valid(t);
  return t;
}

Topology with_exchange_fit(Topology t, const PiecewiseFit& exchange) {
  return with_exchange_fits(std::move(t), &exchange, &exchange);
}

PairPlacement pair_placement(const PingPongPoint& p) {
  if (p.from_host.empty() || p.to_host.empty()) return PairPlacement::kUnknown;
  return p.from_host == p.to_host ? PairPlacement::kInside : PairPlacement::kAcross;
}

std::vector<PingPongPoint> placed_points(std::span<const PingPongPoint> points,
                                         PairPlacement placement) {
  std::vector<PingPongPoint> out;
  for (const PingPongPoint& p : points) {
    if (pair_placement(p) == placement) out.push_back(p);
  }
  return out;
}

LinkFits fit_links(std::span<const PingPongPoint> link, std::span<const PingPongPoint> exchanges,
                   bool two_level_allowed, const PointFitter& fit) {
  LinkFits out;
  out.two_level = two_level_allowed && mixed_placement(link);
  const auto fit_some = [&](std::span<const PingPongPoint> points, const std::string& what,
                            std::optional<PiecewiseFit>& into) {
    if (!points.empty()) into = fit(points, what);
  };
  if (out.two_level) {
    fit_some(placed_points(link, PairPlacement::kAcross), "the ping-pong's pairs across nodes",
             out.link);
    fit_some(placed_points(link, PairPlacement::kInside), "the ping-pong's pairs inside a node",
             out.intra);
    fit_some(placed_points(exchanges, PairPlacement::kAcross), "the exchange times across nodes",
             out.exchange);
    fit_some(placed_points(exchanges, PairPlacement::kInside), "the exchange times inside a node",
             out.intra_exchange);
  } else {
    fit_some(link, "the ping-pong", out.link);
    fit_some(exchanges, "the exchange times", out.exchange);
  }
  return out;
}

bool mixed_placement(std::span<const PingPongPoint> points) {
  bool inside = false;
  bool across = false;
  for (const PingPongPoint& p : points) {
    inside = inside || pair_placement(p) == PairPlacement::kInside;
    across = across || pair_placement(p) == PairPlacement::kAcross;
  }
  return inside && across;
}

std::pair<std::int64_t, std::int64_t> placed_layout(std::span<const PingPongPoint> points,
                                                    std::span<const MeasurementRun> runs) {
  std::map<std::string, std::set<std::int64_t>> ranks_on;
  for (const PingPongPoint& p : points) {
    if (pair_placement(p) == PairPlacement::kUnknown) continue;
    ranks_on[p.from_host].insert(p.from);
    ranks_on[p.to_host].insert(p.to);
  }
  std::int64_t per_node = 1;
  for (const auto& [host, ranks] : ranks_on) {
    per_node = std::max(per_node, static_cast<std::int64_t>(ranks.size()));
  }
  auto nodes = std::max<std::int64_t>(2, static_cast<std::int64_t>(ranks_on.size()));
  for (const MeasurementRun& r : runs) {
    if (r.command != "pingpong") continue;  // another mode's run: its own layout
    if (r.ranks_per_host) per_node = std::max(per_node, *r.ranks_per_host);
    const std::set<std::string> hosts(r.hosts.begin(), r.hosts.end());
    nodes = std::max(nodes, static_cast<std::int64_t>(hosts.size()));
  }
  return {nodes, per_node};
}

Topology calibrated_two_level(const PiecewiseFit& intra, const PiecewiseFit& inter,
                              std::optional<double> gap_s, std::int64_t nodes,
                              std::int64_t ranks_per_node, const std::string& name) {
  if (ranks_per_node < 1) {
    throw InputError(fmt::format("a fabric needs at least 1 rank per node, not {}",
                                 ranks_per_node));
  }
  Topology t = calibrated_topology(inter, gap_s, nodes, name);
  t.intra = intra.link();
  require_valid(t.intra);
  t.ranks_per_node = ranks_per_node;
  require_valid(t);
  return t;
}

Topology with_exchange_fits(Topology t, const PiecewiseFit* intra, const PiecewiseFit* inter) {
  if (intra != nullptr) t.intra = with_exchange(t.intra, intra->link());
  if (inter != nullptr) t.inter = with_exchange(t.inter, inter->link());
  require_valid(t);
  return t;
}

Topology with_exchange_fits(Topology t, const LinkFits& links) {
  const PiecewiseFit* exchange = links.exchange ? &*links.exchange : nullptr;
  if (links.two_level) {
    return with_exchange_fits(std::move(t),
                              links.intra_exchange ? &*links.intra_exchange : nullptr, exchange);
  }
  return exchange != nullptr ? with_exchange_fit(std::move(t), *exchange) : t;
}

std::vector<std::string> exchange_fit_warnings(const PiecewiseFit& exchange) {
  std::vector<std::string> out;
  for (const std::string& w : piecewise_fit_warnings(exchange)) out.push_back("exchange fit: " + w);
  return out;
}

namespace {

// One comment line per regime of a fit: its start, sizes, line and R^2.
std::string regime_comment_lines(const PiecewiseFit& fit) {
  std::string out;
  for (std::size_t i = 0; i < fit.regimes.size(); ++i) {
    const HockneyFit& r = fit.regimes[i].fit;
    out += fmt::format("#   {}. from {}: {} sizes {} .. {}, alpha {}, bandwidth {}, R^2 = {:.6f}\n",
                       i + 1, format_bytes(fit.regimes[i].from_bytes), r.points.size(),
                       format_bytes(r.min_bytes), format_bytes(r.max_bytes),
                       format_seconds(r.alpha_s), format_rate(r.bandwidth_Bps), r.r_squared);
  }
  return out;
}

// The comment lines on the exchange fit: each regime and the warnings.
std::string exchange_comment(const PiecewiseFit& fit) {
  std::string out = fmt::format(
      "# Exchanges (both ranks send at once), segmented least squares over {} sizes ({}):\n",
      fit.single.points.size(), toml_comment_text(fit.rule));
  out += regime_comment_lines(fit);
  for (const std::string& w : exchange_fit_warnings(fit)) {
    out += fmt::format("# WARNING: {}\n", toml_comment_text(w));
  }
  return out;
}

// The comment lines on the fit: the one line over every size, then each regime.
std::string fit_comment(const PiecewiseFit& fit) {
  const HockneyFit& one = fit.single;
  std::string out = fmt::format(
      "# Hockney fit T(m) = alpha + m / bandwidth by {} least squares over {} sizes, {} .. {}:\n"
      "#   alpha {}, bandwidth {}, crossover {}, R^2 = {:.6f}.\n",
      one.weighting == Weighting::kRelative ? "relative (1/T^2-weighted)" : "ordinary",
      one.points.size(), format_bytes(one.min_bytes), format_bytes(one.max_bytes),
      format_seconds(one.alpha_s), format_rate(one.bandwidth_Bps),
      format_bytes(one.crossover_bytes), one.r_squared);
  if (fit.regimes.size() > 1) {
    out += fmt::format("# Size regimes (segmented least squares; {}):\n",
                       toml_comment_text(fit.rule));
    out += regime_comment_lines(fit);
  }
  for (const std::string& w : piecewise_fit_warnings(fit)) {
    out += fmt::format("# WARNING: {}\n", toml_comment_text(w));
  }
  return out;
}

// One regime's figures: alpha-beta, or LogGP when it has a gap or an overhead.
std::string regime_keys(const LinkRegime& r) {
  std::string out;
  if (r.gap_s > 0 || r.overhead_s > 0) {
    out += "# LogGP: o is not identifiable from these measurements and is 0 here, so L = alpha.\n";
    out += fmt::format("L = {}    # {}\n", toml_number(r.alpha_s - 2 * r.overhead_s),
                       format_seconds(r.alpha_s - 2 * r.overhead_s));
    out += fmt::format("o = {}\n", toml_number(r.overhead_s));
    out += fmt::format("g = {}    # {}\n", toml_number(r.gap_s), format_seconds(r.gap_s));
  } else {
    out += fmt::format("alpha = {}    # {}\n", toml_number(r.alpha_s), format_seconds(r.alpha_s));
  }
  out += fmt::format("bandwidth = {}    # {}\n", toml_number(r.bandwidth_Bps),
                     format_rate(r.bandwidth_Bps));
  return out;
}

// The regimes of `l` past its first, as [[<section>.regimes]] tables.
std::string further_regimes(const std::string& section, const Link& l) {
  std::string out;
  for (std::size_t i = 1; i < l.regime_count(); ++i) {
    const LinkRegime r = l.regime(i);
    out += fmt::format("\n[[{}.regimes]]\nfrom = {}    # {}\n", section, toml_number(r.from_bytes),
                       format_bytes(r.from_bytes));
    out += regime_keys(r);
  }
  return out;
}

std::string link_section(const char* section, const Link& l) {
  std::string out = fmt::format("\n[{}]\n", section);
  out += regime_keys(l.regime(0));
  if (l.half_duplex) out += "duplex = \"half\"\n";
  if (l.reverse_traffic > 0) out += fmt::format("reverse_traffic = {}\n", toml_number(l.reverse_traffic));
  out += further_regimes(section, l);
  if (l.has_exchange()) {
    const std::string name = fmt::format("{}.exchange", section);
    out += fmt::format("\n# Measured exchanges (both ranks send at once): they price every step "
                       "where each rank\n# sends and receives.\n[{}]\n", name);
    const Link ex = exchange_link(l);
    out += regime_keys(ex.regime(0));
    out += further_regimes(name, ex);
  }
  return out;
}


// The comment over a local rate's key: the fit, its quality and its warnings.
std::string rate_comment(const GammaFit& fit, std::string_view title, std::string_view pass) {
  std::string out = fmt::format(
      "# {}: least squares through the origin over {} sizes of a {} ({} rank{} at once), "
      "R^2 = {:.6f}.\n",
      title, fit.points.size(), pass, fit.ranks, fit.ranks == 1 ? "" : "s", fit.r_squared);
  for (const std::string& w : gamma_fit_warnings(fit)) {
    out += fmt::format("# WARNING: {}\n", toml_comment_text(w));
  }
  return out;
}

// [[<field>_regimes]] tables of a local rate's regimes above the first.
std::string rate_regime_tables(const ReductionRegimes& above, std::string_view field,
                               std::string_view title, const std::string& rule) {
  std::string out;
  if (above.count > 0) out += fmt::format("# {} ({}).\n", title, toml_comment_text(rule));
  for (std::size_t i = 0; i < above.count; ++i) {
    const ReductionRegime& r = above.above[i];
    out += fmt::format("[[{}_regimes]]\nfrom = {}    # {}\n{} = {}    # {}\n", field,
                       toml_number(r.from_bytes), format_bytes(r.from_bytes), field,
                       toml_number(r.gamma_s_per_byte), format_rate(1.0 / r.gamma_s_per_byte));
  }
  return out;
}

// The local_min_bytes and working_set_ranks keys with their comments; nothing for a key at 0.
std::string working_set_key(const Topology& t) {
  std::string out;
  if (t.local_min_bytes > 0) {
    out += fmt::format(
        "# The smallest size the local passes measured: a pass over fewer bytes costs what "
        "this size cost (the rates above are fitted through the origin).\nlocal_min_bytes = "
        "{}    # {}\n",
        toml_number(t.local_min_bytes), format_bytes(t.local_min_bytes));
  }
  if (t.working_set_ranks <= 0) return out;
  return out + fmt::format(
      "# The working set: the local passes ran {} ranks at once on one host, each touching "
      "twice the size it timed. A step of a call is priced at the slower of its own size's "
      "rate and the rate measured where as much memory was touched as the whole call touches "
      "(its input, output and receive block).\nworking_set_ranks = {}\n",
      t.working_set_ranks, t.working_set_ranks);
}

}  // namespace

std::string fabric_toml(const Topology& t, const PiecewiseFit& fit,
                        const std::vector<std::string>& sources, const GammaFit* gamma,
                        const PiecewiseFit* exchange, const GammaFit* copy,
                        const GammaFit* alloc, const GammaFit* sent_reduction,
                        const GammaFit* sent_exchange, const PiecewiseFit* intra_fit,
                        const PiecewiseFit* intra_exchange) {
  std::string out;
  out += "# Calibrated by scalewall calibrate: measured figures, not datasheet values.\n";
  out += "# From:\n";
  for (const auto& s : sources) out += fmt::format("#   {}\n", toml_comment_text(s));
  if (intra_fit != nullptr) {
    out += "# [inter], the network: the ping-pong's pairs across nodes.\n";
  }
  out += fit_comment(fit);
  if (exchange != nullptr) out += exchange_comment(*exchange);
  if (intra_fit != nullptr) {
    out += "# [intra], inside a node: the ping-pong's pairs on one host.\n";
    out += fit_comment(*intra_fit);
    if (intra_exchange != nullptr) out += exchange_comment(*intra_exchange);
    out += fmt::format(
        "# A two-level fabric: {} ranks per node as the ping-pong's hosts held them, and one "
        "NIC per node, which the ranks of a node share when several send off it at once (a "
        "node with more NICs: nics_per_node, or --nics-per-node where the fabric is used).\n",
        t.ranks_per_node);
  } else {
    out += "# A flat fabric: one rank per node, the same link between every pair of ranks.\n";
  }
  out += fmt::format("name = {}\n", toml_string(t.name));
  out += "nominal = false\n";
  out += fmt::format("nodes = {}\n", t.nodes);
  out += fmt::format("ranks_per_node = {}\n", t.ranks_per_node);
  out += fmt::format("nics_per_node = {}\n", t.nics_per_node);
  out += fmt::format("oversubscription = {}\n", toml_number(t.oversubscription));
  out += fmt::format("placement = {}\n", toml_string(std::string(placement_name(t.placement))));
  // The local rates that were fitted: each its comment and top-level key, then (top-level
  // keys first: TOML puts every key after a [[table]] header into that table) its regimes.
  struct LocalRate {
    const GammaFit* fit;
    const char* title;            // the comment's title
    const char* pass;             // what was timed
    const char* key;              // the TOML key
    const char* verb;             // "per byte <verb>"
    double s_per_byte;
    const ReductionRegimes* above;
    const char* regimes_title;
  };
  const LocalRate rates[] = {
      {gamma, "Reduction cost", "local reduction", "gamma", "reduced", t.gamma_s_per_byte,
       &t.gamma_above, "Reduction rates by the bytes a step reduces"},
      {copy, "Copy cost (an out-of-place call's local copy of its input)", "local copy", "copy",
       "copied", t.copy.s_per_byte, &t.copy.above, "Copy rates by the bytes a call copies"},
      {alloc, "Allocation cost (a work buffer a library allocates in a call)", "fresh buffer",
       "alloc", "allocated", t.alloc.s_per_byte, &t.alloc.above,
       "Allocation rates by the bytes of one work buffer"},
      {sent_reduction,
       "Sent-buffer reduction cost (a step adding into the buffer it has just sent: recursive "
       "doubling)",
       "reduction into a sent buffer", "sent_reduction", "reduced", t.sent_reduction.s_per_byte,
       &t.sent_reduction.above, "Sent-buffer reduction rates by the bytes a step reduces"},
      {sent_exchange,
       "Sent-buffer exchange cost (a step receiving into a block it sent earlier in the call: "
       "a ring all-reduce's all-gather half)",
       "exchange into a sent buffer", "sent_exchange", "received", t.sent_exchange.s_per_byte,
       &t.sent_exchange.above, "Sent-buffer exchange rates by the bytes of one message"},
  };
  for (const LocalRate& r : rates) {
    if (r.fit == nullptr) continue;
    out += rate_comment(*r.fit, r.title, r.pass);
    out += fmt::format("{} = {}    # {} per byte {}, {}\n", r.key, toml_number(r.s_per_byte),
                       format_seconds(r.s_per_byte), r.verb, format_rate(1.0 / r.s_per_byte));
  }
  out += working_set_key(t);
  for (const LocalRate& r : rates) {
    if (r.fit != nullptr) out += rate_regime_tables(*r.above, r.key, r.regimes_title, r.fit->rule);
  }
  out += link_section("intra", t.intra);
  out += link_section("inter", t.inter);
  return out;
}


std::optional<std::string> spread_warning(std::string_view what,
                                          std::span<const SampleSpread> points) {
  std::int64_t pooled = 0;
  std::int64_t wide = 0;
  const SampleSpread* worst = nullptr;
  for (const SampleSpread& p : points) {
    if (p.samples < 2) continue;
    ++pooled;
    if (!(p.spread > kSpreadWarningFactor)) continue;
    ++wide;
    if (worst == nullptr || p.spread > worst->spread) worst = &p;
  }
  if (worst == nullptr) return std::nullopt;
  return fmt::format(
      "{} samples disagree: at {} of {} pooled points the slowest sample is more than {:g}x "
      "the fastest (worst {:.2f}x, {}, {} samples): the machine ran at another speed in some "
      "of the files, and errors up to that size are the measurement's, not the model's; "
      "measure them close together (scalewall-mpi suite --passes K), on a quieter machine",
      what, wide, pooled, kSpreadWarningFactor, worst->spread, worst->where, worst->samples);
}

std::optional<std::string> placement_warning(std::string_view what,
                                             std::span<const PingPongPoint> points) {
  std::set<std::pair<std::int64_t, std::int64_t>> inside;
  std::set<std::pair<std::int64_t, std::int64_t>> across;
  for (const PingPongPoint& p : points) {
    const PairPlacement placed = pair_placement(p);
    if (placed != PairPlacement::kUnknown) {
      (placed == PairPlacement::kInside ? inside : across).insert({p.from, p.to});
    }
  }
  if (inside.empty() || across.empty()) return std::nullopt;
  const auto pair_text = [](const std::pair<std::int64_t, std::int64_t>& p) {
    return fmt::format("{}-{}", p.first, p.second);
  };
  return fmt::format(
      "the {} pools {} rank pair{} inside a node (such as {}) and {} across nodes (such as {}): "
      "the link inside a node and the network are two, and one fit to the median pair of each "
      "size prices neither (their samples disagree for that reason, not the machine's speed); "
      "fit each from a run of its own pairs (scalewall-mpi pingpong --pairs) and give a "
      "fabric file both as its [intra] and [inter] links",
      what, inside.size(), inside.size() == 1 ? "" : "s", pair_text(*inside.begin()),
      across.size(), pair_text(*across.begin()));
}

std::vector<SampleSpread> fit_spreads(const PiecewiseFit& fit) {
  std::vector<SampleSpread> out;
  for (const FitPoint& p : fit.single.points) {
    out.push_back({p.samples, p.spread, format_bytes(p.bytes)});
  }
  return out;
}

std::vector<SampleSpread> validation_spreads(const Validation& validation) {
  std::vector<SampleSpread> out;
  for (const ValidationPoint& p : validation.points) {
    out.push_back({p.samples, p.spread,
                   fmt::format("{} {} N={} {}", op_name(p.op), p.algorithm.name(), p.ranks,
                               format_bytes(p.bytes))});
  }
  return out;
}

}  // namespace scalewall
