// scalewall/analysis/calibrate.h: model parameters fitted to measurements, with the fit's quality.
//
// Hockney (link.h): a one-way message of m bytes costs T(m) = alpha + m / bandwidth. Given
// ping-pong one-way times (measurement.h), fit_hockney takes the median time per distinct
// size and fits the straight line T = a + b m by least squares over the sizes in
// [min_bytes, max_bytes], each size i with weight w_i:
//
//   mean_w m = sum w_i m_i / sum w_i              (and mean_w T likewise)
//   b = sum w_i (m_i - mean_w m)(T_i - mean_w T) / sum w_i (m_i - mean_w m)^2
//   a = mean_w T - b mean_w m,   alpha = a,   bandwidth = 1 / b
//   R^2 = 1 - sum w_i (T_i - a - b m_i)^2 / sum w_i (T_i - mean_w T)^2
//
// Weighting::kOrdinary is ordinary least squares (w_i = 1): it minimises the absolute
// residuals, so the largest sizes, whose times are thousands of times alpha, pin the line
// and a fraction of a percent of noise there moves the intercept by more than alpha itself.
// Weighting::kRelative (the default) takes w_i = 1 / T_i^2: it minimises the relative
// residuals (T_i - fitted) / T_i, which is how timing noise behaves (a few percent at every
// size) and how validate scores the model, so alpha is fitted by the small sizes and the
// bandwidth by the large ones. R^2 is computed in the fit's own weighting.
//
// Each size counts once (its median), so a size measured by many pairs or files does not
// outweigh the others. It refuses (InputError, saying why) fewer than 3 distinct sizes, a
// zero time under relative weighting, and a non-positive intercept or slope: a line that
// does not describe a link.
//
// LogGP (link.h) splits alpha into L + 2o and adds the gap g. What each measurement pins down:
//   * ping-pong alone: alpha = L + 2o and G = 1/bandwidth. L and o are not separable from it.
//   * streaming bandwidth (osu_bw: a window of messages in flight, one acknowledgement per
//     window) at small m: the interval between messages is m / bw(m), which tends to
//     max(g, o) as m G vanishes. fit_loggp reports that interval as g when the smallest
//     streamed size is latency-bound (m G below a tenth of the interval); otherwise g is
//     not identifiable and it says so.
//   * o: none of the formats read here times the sender's CPU alone (e.g. time inside
//     MPI_Isend), so o is never identified; a fabric written from a fit with g keeps o = 0
//     and L = alpha (alpha = L + 2o holds either way).
//
// Collectives: bus bandwidth (nccl-tests convention, collective.h) per measured size,
// busbw = m / T * busbw_factor(op, N), and a large-message asymptote: the slope of the
// least-squares line T = a + (busbw_factor m) / B over the upper half of the sizes (the
// largest ceil(n/2), at least 2 sizes with m > 0), B being the asymptote; with fewer sizes
// or a slope that is not positive, the largest size's busbw.
#ifndef SCALEWALL_CALIBRATE_H_
#define SCALEWALL_CALIBRATE_H_

#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scalewall/model/collective.h"
#include "scalewall/model/link.h"
#include "scalewall/model/nccl.h"
#include "scalewall/io/measurement.h"
#include "scalewall/model/topology.h"

namespace scalewall {

enum class Weighting { kRelative, kOrdinary };

// "relative" or "ordinary".
std::string_view weighting_name(Weighting weighting);
// The inverse; throws InputError naming the text.
Weighting parse_weighting(std::string_view text);

// The size range a fit uses, inclusive, and its weighting. Default: every size, relative.
struct FitOptions {
  double min_bytes = 0;                                         // >= 0
  double max_bytes = std::numeric_limits<double>::infinity();   // >= min_bytes
  Weighting weighting = Weighting::kRelative;                   // fit_hockney only
};

// One fitted size.
struct FitPoint {
  double bytes = 0;
  std::int64_t samples = 0;    // ping-pong records at this size (pairs x files)
  double measured_s = 0;       // median of their one_way_median_s
  double spread = 1;           // the slowest of them over the fastest, of those above 0 (1 for one)
  double fitted_s = 0;         // alpha + bytes / bandwidth
  double residual_s = 0;       // measured - fitted
  double relative_residual = 0;  // residual / measured (0 when measured is 0)
};

struct HockneyFit {
  double alpha_s = 0;          // the intercept, seconds (> 0)
  double bandwidth_Bps = 0;    // 1 / slope, bytes per second (> 0)
  double crossover_bytes = 0;  // alpha * bandwidth (link.h's m*)
  double r_squared = 0;        // 1 - SS_res / SS_tot in the fit's weighting; 1 when every
                               // point is on the line
  Weighting weighting = Weighting::kRelative;
  double min_bytes = 0;        // the smallest and largest size used
  double max_bytes = 0;
  std::vector<FitPoint> points;  // one per distinct size used, ascending
  std::int64_t excluded_sizes = 0;  // distinct sizes outside the range

  Link link() const;           // {alpha_s, bandwidth_Bps}
};

// ---- The fit's quality ----
//
// A fit a fabric should not be written from without a warning: R^2 below kPoorFitRSquared,
// or a run of at least kLongResidualRun consecutive sizes whose relative residuals all have
// one sign and each exceed kRunResidualFloor (the times bend away from the straight line
// there: an eager-to-rendezvous protocol switch, or two links mixed in one fit).

// Below 0.95 the line leaves more than 5% of the (weighted) variation of the times
// unexplained: several times what timing noise of a few percent per size leaves.
inline constexpr double kPoorFitRSquared = 0.95;
// Four sizes in a row on one side of the line: with residuals of independent sign that
// happens by chance once in eight runs of four; beyond the floor below, it is a bend, not
// noise.
inline constexpr std::size_t kLongResidualRun = 4;
// 5%: above the few-percent spread of repeated ping-pong medians on a quiet link.
inline constexpr double kRunResidualFloor = 0.05;

// One line per way the fit falls short (empty for a good fit), with the figures that show
// it and the threshold it crosses.
std::vector<std::string> fit_quality_warnings(const HockneyFit& fit);

// Fits alpha and bandwidth to the median one-way time per size. Throws InputError when the
// range is invalid, when fewer than 3 distinct sizes fall in it, when a median time is 0
// under relative weighting, or when the fitted alpha or bandwidth is not positive (the
// message says which, with its value, and what to try).
HockneyFit fit_hockney(std::span<const PingPongPoint> points, const FitOptions& options = {});

// ---- The piecewise link: segmented least squares ----
//
// One Hockney line rarely fits a real ping-pong from 1 B to 64 MiB: an MPI library switches
// from its eager to its rendezvous protocol at a few KiB, a shared-memory transport slows when
// the buffers leave the caches, SimGrid's default network model scales latency and bandwidth
// by message size in nine segments. fit_piecewise splits the sizes into k contiguous runs and
// fits each its own line (the weighting of FitOptions), choosing the split points that
// minimise the sum of squared relative residuals (dynamic programming over every split of the
// median-per-size points, each run at least kMinRegimeSizes sizes and a line with positive
// bandwidth and an alpha of at least 1 ns: where a run's unconstrained line would cross zero,
// as it does where the rate falls with size while the buffers leave a cache, its line is the
// least squares with alpha held at 1 ns). The number of regimes k is chosen by the Bayesian
// information
// criterion on the relative residuals,
//
//   BIC(k) = n ln(max(RSS_k / n, f^2)) + (3k - 1) ln n     (f = kRegimeNoiseFloor)
//
// (two parameters per line plus k - 1 split points; the least BIC wins, a tie the fewer
// regimes), so a regime is added only when it explains clearly more than noise: an added
// regime must cut RSS by a factor exp(3 ln(n) / n) (1.5 at 24 sizes), and once the rms
// relative residual is below f nothing more is gained. A regime starts where its line and the
// previous one cross between the two runs' facing sizes, or, when they do not cross there, at
// the geometric mean of those sizes.

// Two sizes define a regime's line; a regime of two sizes fits them exactly (unless its alpha is
// held at the floor), so its R^2 says nothing (the report says so).
inline constexpr std::size_t kMinRegimeSizes = 2;
// 0.3%: the repeat-to-repeat spread of the medians of a quiet ping-pong is a few tenths of a
// percent at best; a fit closer than that is fitting noise, so the criterion stops there.
inline constexpr double kRegimeNoiseFloor = 0.003;

struct RegimeFit {
  double from_bytes = 0;  // the smallest message it prices (0 for the first)
  HockneyFit fit;         // its line over its own sizes, with R^2 and residuals
};

struct PiecewiseFit {
  std::vector<RegimeFit> regimes;  // ascending; one for a plain Hockney line
  HockneyFit single;               // one line over every size (fit_hockney), for comparison
  std::vector<double> bic;         // BIC(k) for k = 1 .. (index k - 1); infinity where no
                                   // admissible split into k runs exists
  std::string rule;                // how the count was chosen ("3 regimes: the least BIC over
                                   // 1 .. 10 regimes", "2 regimes, as given")
  Link link() const;               // the regimes as a piecewise link (link.h)
};

// Fits the ping-pong points as a piecewise link. `regimes`: the number of regimes, or empty
// to choose it by the criterion above (up to kMaxLinkRegimes). Throws InputError as
// fit_hockney does, and when `regimes` is 0, above kMaxLinkRegimes, or more than the sizes
// admit (the message says how many they admit).
PiecewiseFit fit_piecewise(std::span<const PingPongPoint> points, const FitOptions& options = {},
                           std::optional<std::size_t> regimes = std::nullopt);

// fit_quality_warnings for each regime of more than kMinRegimeSizes sizes, each line prefixed
// with the regime and its size range ("regime 2 of 3 (4 KiB .. 64 KiB): ..."); with one
// regime, fit_quality_warnings of it. Of several regimes, one whose every relative residual is
// within kRunResidualFloor raises none: a regime of latency-bound sizes whose times barely
// change has little variation for R^2 to measure, and a percent of noise gives it a low R^2
// although it fits within noise.
std::vector<std::string> piecewise_fit_warnings(const PiecewiseFit& fit);

// ---- The reduction cost (gamma) ----
//
// A reducing collective adds what it receives into its buffer: gamma seconds per byte
// reduced (collective.h's compute term). scalewall-mpi reduce times that addition over a
// size sweep, every rank at once (on a CPU it is a memory-bandwidth question: the rate falls
// when the buffers leave the caches). The fit is least squares through the origin on the
// median time per size,
//
//   gamma = sum(b t) / sum(b^2)
//
// which the largest sizes dominate: a collective's reduced chunks are large exactly where
// gamma matters against the bandwidth term, and small ones pay latency instead. R^2 and the
// same-sign residual runs flag a sweep that one rate does not describe (a cache regime).

// One rate of a piecewise reduction fit, over its own run of sizes.
struct GammaRegimeFit {
  double from_bytes = 0;         // the smallest step it prices (0 for the first)
  double gamma_s_per_byte = 0;   // > 0
  double min_bytes = 0;          // its sizes
  double max_bytes = 0;
  std::size_t sizes = 0;
};

// The same fit serves the local copy an out-of-place call makes (scalewall-mpi reduce's "copy"
// records; CostOptions::copy) and a library's work buffers ("alloc" records;
// CostOptions::alloc): `what` says which pass it describes.
struct GammaFit {
  std::string what = "reduction";  // "reduction", "copy" or "alloc": the local pass fitted
  double gamma_s_per_byte = 0;  // > 0: one rate over every size
  double rate_Bps = 0;          // 1 / gamma
  double r_squared = 0;         // 1 - SS_res / SS_tot of the fit (of its regimes, when several)
  std::int64_t ranks = 1;       // ranks that reduced at once (the largest in the points)
  std::vector<FitPoint> points; // one per distinct size, ascending; fitted_s from its regime
  // The rates by size: split as fit_piecewise splits a link (relative least squares through
  // the origin per run of at least kMinRegimeSizes sizes, the count by the same BIC with two
  // parameters per regime less one); one regime, the single rate, when one rate describes the
  // sweep. A step reducing b bytes pays the gamma of the regime of b.
  std::vector<GammaRegimeFit> regimes;
  std::string rule;             // how the count was chosen
  // The regimes as CostOptions/Topology take them: the first regime's gamma, and the others.
  double first_gamma() const { return regimes.empty() ? gamma_s_per_byte : regimes[0].gamma_s_per_byte; }
  ReductionRegimes regimes_above() const;
  // The rates as a CopyCost (link.h) takes them, for a copy or an allocation fit.
  CopyCost copy_cost() const { return {first_gamma(), regimes_above()}; }
};

// Throws InputError when fewer than 2 distinct sizes above 0 bytes are given. `what`:
// "reduction" (the points are reductions), "copy" (copies) or "alloc" (fresh work buffers), for
// GammaFit::what and messages.
GammaFit fit_gamma(std::span<const ReductionPoint> points, std::string_view what = "reduction");

// Splits fit.points into rate regimes (GammaFit::regimes) and sets each point's fitted time and
// residuals, and fit.r_squared, from its regime. fit_gamma calls it.
void split_gamma_regimes(GammaFit& fit);

// One line per way the gamma fit falls short (R^2 below kPoorFitRSquared, a same-sign run of
// kLongResidualRun sizes beyond kRunResidualFloor); empty for a good fit.
std::vector<std::string> gamma_fit_warnings(const GammaFit& fit);

// The local rates of a measurement set, each fitted by fit_gamma; empty where the set holds
// none of its records.
struct LocalRateFits {
  std::optional<GammaFit> gamma;           // "reduction" records
  std::optional<GammaFit> copy;            // "copy"
  std::optional<GammaFit> alloc;           // "alloc"
  std::optional<GammaFit> sent_reduction;  // "sent_reduction"
  std::optional<GammaFit> sent_exchange;   // "sent_exchange"
  // The ranks of one host that ran the local passes at once (their run's ranks_per_host;
  // where no run says, the ranks of the passes); 0 when no local rate was fitted.
  std::int64_t ranks_per_host = 0;
  // The smallest size any fitted local pass measured (CostOptions::local_min_bytes); 0 when
  // none was fitted.
  double min_bytes = 0;
};
LocalRateFits fit_local_rates(const MeasurementSet& set);

// The fabric with every fitted local rate of `fits` as its cost (gamma and its regimes, copy,
// alloc, sent_reduction, sent_exchange), and, where any was fitted, its working_set_ranks
// (the ranks of one host that ran them: CostOptions::working_set_ranks); the others as they
// were.
Topology with_local_rates(Topology fabric, const LocalRateFits& fits);

// ---- Streaming bandwidth and the LogGP gap ----

struct LogGPFit {
  std::optional<double> gap_s;        // g (strictly max(g, o)); empty when not identifiable
  std::string gap_note;               // how g was found, or why it was not
  std::optional<double> streaming_bandwidth_Bps;  // the largest streamed bandwidth
  std::string overhead_note;          // why o is not identified
};

// g from the smallest streamed size (see the header comment), given the Hockney fit for G.
// With no stream points, g is empty and gap_note says osu_bw data would give it.
LogGPFit fit_loggp(const HockneyFit& hockney, std::span<const StreamPoint> stream);

// ---- Collectives: bus bandwidth ----

struct BusBandwidthPoint {
  double bytes = 0;
  std::int64_t samples = 0;   // records at this size
  double time_s = 0;          // median of their time_median_s
  double algbw_Bps = 0;       // bytes / time (0 for 0 bytes)
  double busbw_Bps = 0;       // algbw * busbw_factor(op, ranks)
};

struct BusBandwidthFit {
  std::size_t series = 0;       // the measurement series (MeasurementSet::series) it is of
  Op op = Op::kAllreduce;
  MeasuredAlgorithm algorithm;  // as measured (the library's call, ring, ...)
  std::int64_t ranks = 0;
  std::vector<BusBandwidthPoint> points;  // ascending size
  std::optional<double> asymptote_Bps;    // empty when no size above 0 bytes
  std::string asymptote_method;           // "least squares over the N largest sizes" or
                                          // "largest size"
};

// One fit per (series, op, algorithm, ranks), in order of first appearance: two series are
// never pooled (pool_series pools them first, when asked). Points with ranks < 2
// (no bus to measure) or an unreadable op are skipped, each with a line in *warnings; so are
// points whose result was wrong (not verified, or CollectivePoint::wrong > 0), one line each.
// Points outside the options' size range are left out.
std::vector<BusBandwidthFit> fit_bus_bandwidth(std::span<const CollectivePoint> points,
                                               const FitOptions& options,
                                               std::vector<std::string>* warnings);

// Gives `ranks` to every collective point whose log did not record its rank count (ranks 0,
// as OSU's collective logs), recomputing its busbw. Returns how many points it changed.
// REQUIRES: ranks >= 1 (throws InputError otherwise).
// A point whose bytes are still per peer (all-to-all of OSU and IMB) gets bytes x ranks; a
// series of such points gets the rank count too.
std::int64_t assign_unknown_ranks(MeasurementSet& set, std::int64_t ranks);

// Gives every series `ranks_per_node` (--ranks-per-node), in place of what its log says, and
// the nodes that follow from its rank count. REQUIRES: ranks_per_node >= 1 (throws).
void assign_ranks_per_node(MeasurementSet& set, std::int64_t ranks_per_node);

// ---- Series: every table of every file is its own, never pooled unless asked ----

// One line for each two series that time the same op at the same rank count, kept apart (for
// the report's warnings).
std::vector<std::string> series_overlaps(const MeasurementSet& set);

// Pools the series that agree in what they time (their ops at their rank counts, ping-pong
// or not) and in layout (nodes, ranks per node): each point of a later one moves to the first
// it agrees with, whose label becomes "A + B". Series that disagree stay apart. Returns one
// line per series pooled.
std::vector<std::string> pool_series(MeasurementSet& set);

// The ping-pong points one link is fitted to: every one, when they are of one series. Throws
// InputError naming the series (and --pool) when they are of several.
std::vector<PingPongPoint> link_points(const MeasurementSet& set);

// The exchange points (scalewall-mpi exchange) their link regimes are fitted to: every one,
// when they are of one series; none when the set has none. Throws InputError naming the
// series (and --pool) when they are of several.
std::vector<PingPongPoint> exchange_points(const MeasurementSet& set);

// The ring-equivalent ping-pong of a collective series, for logs that hold no ping-pong
// (nccl-tests, osu_allreduce, IMB Allreduce): a ring all-reduce of m bytes on N ranks is
// 2(N - 1) steps of one message of m/N (reduce-scatter and all-gather N - 1), so each point
// becomes a message of m/N bytes taking t / steps one way. The link fitted to them prices that
// ring exactly as measured, every size in its own regime (NCCL's protocols show as regimes);
// it is the ring's link, not a ping-pong's. Uses the one series of such points (all-reduce,
// reduce-scatter or all-gather; the library's call or the ring; N >= 2; sizes of at least N
// bytes, one per rank). REQUIRES (throws InputError naming what is there): exactly one such
// series, or several that --pool pooled into one.
std::vector<PingPongPoint> ring_equivalent_points(const MeasurementSet& set);

// ---- Validation: the model against measured collectives ----
//
// For each measured (op, algorithm, ranks, bytes), the measured time is the median of the
// matching records' time_median_s; the prediction is collective_cost on the fabric scaled to
// that rank count (scaled_topology). A measured algorithm "library" (the MPI library's or
// NCCL's own choice, unknown to us) is compared with NCCL's pick (nccl.h) where the selector
// is NCCL's (by default: on a fabric whose ranks are GPUs, for an op NCCL chooses for,
// nccl_is_default), else with the model's cheapest applicable algorithm, and the point says
// which. The error is relative to the measurement:
//
//   error = (predicted - measured) / measured      (> 0: the model is pessimistic)
//
// A point is latency-bound when the model's latency term exceeds its bandwidth term plus its
// compute term, bandwidth-bound otherwise.

enum class ValidationRegime { kLatencyBound, kBandwidthBound };

// "latency-bound" or "bandwidth-bound".
std::string_view validation_regime_name(ValidationRegime regime);

struct ValidationPoint {
  std::size_t series = 0;        // the measurement series (MeasurementSet::series) it is of
  std::string series_label;      // that series' label; empty when none was given
  Op op = Op::kAllreduce;
  MeasuredAlgorithm algorithm;   // as measured: ring, the library's call, ...
  AlgorithmSpec modelled;        // the model algorithm predicted (ring; for the library's
                                 // call, the model's cheapest); unused when nccl is set
  std::optional<NcclCost> nccl;  // the library's call priced by NCCL's pick
  std::string modelled_name;     // "ring", NCCL's pick as "nccl Ring/LL128", or a library rule
                                 // set's pick as "ompi rabenseifner"
  std::string rules;             // the library rules ("ompi", "mpich") that picked `modelled`
                                 // for the library's call; empty otherwise
  std::int64_t ranks = 0;
  double bytes = 0;
  std::int64_t samples = 0;      // records at this point
  double measured_s = 0;         // median of their time_median_s
  double spread = 1;             // the slowest of them over the fastest, of those above 0 (1 for one)
  double predicted_s = 0;        // collective_cost total_s
  double latency_s = 0;          // its latency term
  double bandwidth_s = 0;        // its bandwidth term
  double relative_error = 0;     // (predicted - measured) / measured
  ValidationRegime regime = ValidationRegime::kLatencyBound;
};

// Median and worst |error| over a group of points.
struct ValidationSummary {
  std::string group;             // "all", "algorithm", "ranks", "series" (when the points
                                 // come from several) or "regime"
  std::string name;              // "all", an algorithm as measured, a rank count, or a
                                 // regime name
  std::int64_t points = 0;
  double median_abs_error = 0;
  double worst_abs_error = 0;
  double worst_error = 0;        // the signed error of the worst point
  std::size_t worst_index = 0;   // into Validation::points
};

struct Validation {
  std::vector<ValidationPoint> points;       // in order of first appearance
  std::vector<ValidationSummary> summaries;  // "all", then per algorithm, per rank count,
                                             // then per regime
  // Why points were left out: one line per reason and (op, algorithm), saying it once with
  // how many measured points and the rank counts and sizes it covers ("broadcast library, 3
  // points at 2, 4 and 8 ranks, 0 B: ...").
  std::vector<std::string> skipped;
  std::int64_t points_skipped = 0;           // measured points left out, over every reason
};

// Validates the model on `fabric` against `measured`. Points are left out (and listed in
// `skipped`) when: the result was not verified or had wrong elements (CollectivePoint::wrong
// > 0: "N wrong elements: the result was not the expected sum"); ranks is 0 (unknown) or 1 (the model predicts
// zero: nothing to exchange); the size is 0 bytes for the library's call of an op that moves
// data (a zero-count MPI_Bcast, MPI_Allreduce, ... returns at once in Open MPI, while the
// model charges latency; a hand-written algorithm's zero-length messages do pay it, so its
// zero-byte points are scored); the measured time is 0; the algorithm is not a model
// algorithm or does not implement the op; the fabric cannot be scaled to the rank count.
// Throws InputError when no point is left to validate (the message gives the reasons).
//
// Points of different series (CollectivePoint::series) are never pooled: each series has its
// points, labelled from `series` when it is given. A series whose log gives its ranks per node
// is predicted on the fabric laid out so (its nodes = ranks / ranks per node), in place of the
// fabric's own ranks per node: a 2 x 32-rank run is two nodes sharing their NICs, not 64.
//
// How the library's call is priced: kNccl always NCCL's pick (throws InputError when the
// fabric's ranks are not GPUs or NCCL does not choose for the op), kMpi always the model's
// cheapest algorithm, kOpenMpi and kMpich the model's counterpart of what that library's fixed
// rules pick (select.h's library_choice; a pick the model has no counterpart for is left
// out). kAuto: NCCL's pick where NCCL is the default for the op on the fabric; else the rules
// of the library the series names (MeasurementSeries::mpi_library beginning "Open MPI" or
// "MPICH"); else the model's cheapest algorithm.
enum class ValidationSelector { kAuto, kNccl, kMpi, kOpenMpi, kMpich };

// The NCCL release a series states (MeasurementSeries::nccl_version), which picks NCCL's
// algorithm for its points where the fabric names no release (GpuFeatures::nccl_release);
// empty when it states none or one that does not read as an NCCL 2 release.
std::optional<NcclRelease> series_nccl_release(const MeasurementSeries& series);

Validation validate_collectives(std::span<const CollectivePoint> measured, const Topology& fabric,
                                const CostOptions& options = {},
                                std::span<const MeasurementSeries> series = {},
                                ValidationSelector selector = ValidationSelector::kAuto);

// ---- The calibrated fabric ----

// A flat fabric with the fitted link (every regime of it) between every pair of ranks: one
// rank per node (ranks_per_node = 1, one NIC), `nodes` nodes, intra = inter = the link,
// nominal = false. With a gap, the link is LogGP in every regime: L = alpha, o = 0, g = gap,
// G = 1 / bandwidth. REQUIRES: nodes >= 1, a valid fit (throws InputError otherwise).
Topology calibrated_topology(const PiecewiseFit& fit, std::optional<double> gap_s,
                             std::int64_t nodes, const std::string& name);

// `topology` with the exchange fit's regimes (fit.link()'s) as the exchange regimes of both
// its links (link.h: they price every step where each rank both sends and receives).
Topology with_exchange_fit(Topology topology, const PiecewiseFit& exchange);

// Where a ping-pong pair's two ranks ran, by its record's hosts: on one host (inside a node),
// on two (across nodes), or not said.
enum class PairPlacement { kInside, kAcross, kUnknown };
PairPlacement pair_placement(const PingPongPoint& point);
// The points of one placement, in their order.
std::vector<PingPongPoint> placed_points(std::span<const PingPongPoint> points,
                                         PairPlacement placement);
// Whether `points` hold pairs inside a node and pairs across nodes: two links to fit apart.
bool mixed_placement(std::span<const PingPongPoint> points);
// The nodes and ranks per node that a ping-pong's pairs show: the hosts named, and the most
// ranks seen on one of them (at least 2 nodes and 1 rank); where the contexts of the runs of
// scalewall-mpi pingpong say more (ranks_per_host and hosts, which count ranks no pair
// measured), theirs.
std::pair<std::int64_t, std::int64_t> placed_layout(std::span<const PingPongPoint> points,
                                                    std::span<const MeasurementRun> runs = {});

// A two-level fabric from a ping-pong of pairs inside and across nodes: intra = the fit of the
// pairs inside a node, inter = the fit of the pairs across nodes (LogGP with `gap_s` as in
// calibrated_topology), `nodes` x `ranks_per_node`, one NIC per node (the ranks of a node share
// it when several send off the node at once), nominal = false. REQUIRES: nodes >= 1,
// ranks_per_node >= 1, valid fits (throws InputError otherwise).
Topology calibrated_two_level(const PiecewiseFit& intra, const PiecewiseFit& inter,
                              std::optional<double> gap_s, std::int64_t nodes,
                              std::int64_t ranks_per_node, const std::string& name);
// `topology` with exchange fits of its two levels: each (where given) as the exchange regimes
// of its own link.
Topology with_exchange_fits(Topology topology, const PiecewiseFit* intra,
                            const PiecewiseFit* inter);

// The links a ping-pong and its exchanges calibrate: one flat link, or, where the ping-pong's
// pairs sit inside a node and across nodes (mixed_placement), two, each fitted to its own pairs,
// and the exchanges split the same way.
struct LinkFits {
  bool two_level = false;
  std::optional<PiecewiseFit> link;            // the flat link, or the network's; none without
                                               // ping-pong points
  std::optional<PiecewiseFit> intra;           // the node's (two_level)
  std::optional<PiecewiseFit> exchange;        // every exchange, or those across nodes
  std::optional<PiecewiseFit> intra_exchange;  // the exchanges inside a node (two_level)
};
// Fits one set of points; `what` names them for an error ("the ping-pong", "the ping-pong's
// pairs across nodes", "the exchange times inside a node", ...): every name of a ping-pong
// starts "the ping-pong", every name of exchanges "the exchange times".
using PointFitter =
    std::function<PiecewiseFit(std::span<const PingPongPoint> points, const std::string& what)>;
// Fits `link` and `exchanges` with `fit`: two levels where `two_level_allowed` and the link's
// pairs are mixed, else one. An empty set is not fitted (nor a level of the exchanges with no
// points). Throws what `fit` throws.
LinkFits fit_links(std::span<const PingPongPoint> link, std::span<const PingPongPoint> exchanges,
                   bool two_level_allowed, const PointFitter& fit);
// `topology` with the exchange fits of `links`: each level's own where they are two levels
// (with_exchange_fits), the one fit on both links where flat (with_exchange_fit); unchanged
// without exchanges.
Topology with_exchange_fits(Topology topology, const LinkFits& links);

// Refuses fitted figures that no fabric holds, so that calibrate never writes a fabric file
// or report that a command would refuse to read back: every link's alpha (1e-12 s to 1e6 s)
// and bandwidth (1 B/s to 1 PB/s), over every size and in each regime, the LogGP gap (0 or
// 1e-12 s to 1e6 s), each local rate's cost per byte (0 or 1e-15 to 1 s/B) and the smallest
// local pass (0 or 1 B to 1 EB), the ranges a fabric file is read in. Throws InputError
// "the fitted <figure> <value> is outside the range <range> ...".
void require_fabric_figures(const LinkFits& links, const std::optional<LogGPFit>& loggp,
                            const LocalRateFits& local);

// piecewise_fit_warnings of an exchange fit, each line prefixed "exchange fit: ".
std::vector<std::string> exchange_fit_warnings(const PiecewiseFit& exchange);

// ---- Pooled samples that disagree ----

// One pooled point's samples: how many, and the slowest over the fastest.
struct SampleSpread {
  std::int64_t samples = 0;
  double spread = 1;
  std::string where;  // the point, as the warning names it ("64 KiB", "allreduce ring N=2 1 MiB")
};
// Samples of one point that differ by more than this factor are a measurement that changed
// between the files (a machine that ran at another speed), not a model error.
inline constexpr double kSpreadWarningFactor = 1.5;

// The warning, empty when none is due: at how many of the points with two samples or more the
// slowest sample is above kSpreadWarningFactor times the fastest, and the worst of them. `what`
// names the measurement ("ping-pong", "exchange", "collective").
std::optional<std::string> spread_warning(std::string_view what,
                                          std::span<const SampleSpread> points);
// The warning, empty when none is due: `points` (a ping-pong or exchanges) pool rank pairs
// inside a node and pairs across nodes (by their records' hosts), two links that one fit
// prices as one, with the count and an example of each kind.
std::optional<std::string> placement_warning(std::string_view what,
                                             std::span<const PingPongPoint> points);
// The spreads of a fit's sizes (its points over every size), each named by its size.
std::vector<SampleSpread> fit_spreads(const PiecewiseFit& fit);
// The spreads of validated points, each named as the summary's "worst at".
std::vector<SampleSpread> validation_spreads(const Validation& validation);

// The fabric file text (fabric_file.h's TOML) for `topology`, every value in SI units at
// full precision, with comments: which files it was calibrated from, the fit's quality per
// regime, and a "# WARNING: " line for each of piecewise_fit_warnings(fit); with a gamma fit,
// the topology's gamma with that fit's quality and warnings. A piecewise link is written as
// its first regime and [[<section>.regimes]] tables. load_fabric_file reads it back to the
// same Topology. With an intra fit (a two-level fabric, calibrated_two_level), `fit` is the
// network's and `intra_fit` the node's, each commented as such (and `intra_exchange` beside
// `exchange`).
// With an exchange fit, its quality per regime and its warnings likewise, and the exchange
// regimes as [<section>.exchange] tables. With a copy fit, the topology's copy cost (`copy`
// and [[copy_regimes]]) with that fit's quality and warnings; with an allocation fit, the
// topology's allocation cost (`alloc` and [[alloc_regimes]]) likewise.
std::string fabric_toml(const Topology& topology, const PiecewiseFit& fit,
                        const std::vector<std::string>& sources,
                        const GammaFit* gamma = nullptr,
                        const PiecewiseFit* exchange = nullptr,
                        const GammaFit* copy = nullptr, const GammaFit* alloc = nullptr,
                        const GammaFit* sent_reduction = nullptr,
                        const GammaFit* sent_exchange = nullptr,
                        const PiecewiseFit* intra_fit = nullptr,
                        const PiecewiseFit* intra_exchange = nullptr);

}  // namespace scalewall

#endif  // SCALEWALL_CALIBRATE_H_
