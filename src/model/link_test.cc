// Tests of scalewall/model/link.h: Hockney cost, crossover size and regime (seed D01 section 3.1,
// Lab 2, exercise 2).
#include "scalewall/model/link.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "scalewall/base/error.h"
#include "test_support.h"

namespace scalewall {
namespace {

constexpr Link kLab2Link{2.5e-6, 25e9};    // inter-node RDMA class
constexpr Link kGigabit{30e-6, 0.125e9};   // 1 GbE class

TEST(Link, DefaultIsTheLab2Link) {
  EXPECT_EQ(kDefaultLink.alpha_s, 2.5e-6);
  EXPECT_EQ(kDefaultLink.bandwidth_Bps, 25e9);
  EXPECT_DOUBLE_EQ(kDefaultLink.beta_s_per_byte(), 4e-11);
}

TEST(MessageCost, HandComputed) {
  // 1 MB over 2.5 us / 25 GB/s: 2.5 us + 1e6 / 25e9 s = 2.5 us + 40 us = 42.5 us.
  const MessageCost c = message_cost(kLab2Link, 1e6);
  EXPECT_EQ(c.bytes, 1e6);
  EXPECT_EQ(c.latency_s, 2.5e-6);
  EXPECT_DOUBLE_EQ(c.bandwidth_s, 40e-6);
  EXPECT_DOUBLE_EQ(c.total_s, 42.5e-6);

  // 4 KB over 1 GbE: 30 us + 4096 / 1.25e8 s = 30 us + 32.768 us.
  const MessageCost g = message_cost(kGigabit, 4096);
  EXPECT_DOUBLE_EQ(g.bandwidth_s, 32.768e-6);
  EXPECT_DOUBLE_EQ(g.total_s, 62.768e-6);

  // One byte, an odd size, and a huge one (1 PB: 40,000 s of wire time).
  EXPECT_DOUBLE_EQ(message_cost(kLab2Link, 1).total_s, 2.5e-6 + 4e-11);
  EXPECT_DOUBLE_EQ(message_cost(kLab2Link, 12345).bandwidth_s, 12345 / 25e9);
  EXPECT_DOUBLE_EQ(message_cost(kLab2Link, 1e15).total_s, 40000.0 + 2.5e-6);
}

TEST(MessageCost, ZeroBytesCostsAlpha) {
  const MessageCost c = message_cost(kGigabit, 0);
  EXPECT_EQ(c.bandwidth_s, 0.0);
  EXPECT_EQ(c.total_s, 30e-6);
  EXPECT_EQ(c.latency_s, c.total_s);
}

TEST(MessageCost, RisesWithBytes) {
  double previous = message_cost(kLab2Link, 0).total_s;
  for (double m = 1; m <= 1e12; m *= 3.7) {
    const double cost = message_cost(kLab2Link, m).total_s;
    EXPECT_GT(cost, previous) << "at " << m << " B";
    previous = cost;
  }
}

TEST(MessageCost, TermsEqualAtTheCrossover) {
  for (const Link& link : {kLab2Link, kGigabit, Link{1e-6, 300e9}, Link{7.3e-5, 1.1e9}}) {
    const MessageCost c = message_cost(link, crossover_bytes(link));
    EXPECT_NEAR(c.bandwidth_s, c.latency_s, 1e-12 * c.latency_s);
  }
}

TEST(CrossoverBytes, Lab2InterNodeLink) {
  // m* = alpha x bandwidth = 2.5e-6 s x 25e9 B/s = 62,500 B.
  EXPECT_NEAR(crossover_bytes(kLab2Link), 62500.0, 1e-9);
}

TEST(CrossoverBytes, Lab2GigabitLinkIsMoreThanADecadeLower) {
  // 30e-6 s x 0.125e9 B/s = 3,750 B: high latency raises m*, low bandwidth lowers it more.
  const double gigabit = crossover_bytes(kGigabit);
  EXPECT_NEAR(gigabit, 3750.0, 1e-9);
  EXPECT_GT(crossover_bytes(kLab2Link) / gigabit, 10.0);
  // So on it even a 64 KB message is bandwidth-bound, while on the fast link it is balanced.
  EXPECT_EQ(classify_message(kGigabit, 64e3), Regime::kBandwidthBound);
  EXPECT_EQ(classify_message(kGigabit, 65536), Regime::kBandwidthBound);
  EXPECT_EQ(classify_message(kLab2Link, 64e3), Regime::kBalanced);
}

TEST(ClassifyMessage, FourKilobytesIsLatencyBoundOnFastFabrics) {
  EXPECT_EQ(classify_message(kLab2Link, 4096), Regime::kLatencyBound);
  EXPECT_EQ(classify_message(Link{1.5e-6, 300e9}, 4096), Regime::kLatencyBound);
}

TEST(ClassifyMessage, BoundariesAreBalanced) {
  for (const Link& link : {kLab2Link, kGigabit, Link{3.3e-6, 12.3e9}}) {
    const double m_star = crossover_bytes(link);
    EXPECT_EQ(classify_message(link, m_star / 2.0), Regime::kBalanced);
    EXPECT_EQ(classify_message(link, m_star * 2.0), Regime::kBalanced);
    EXPECT_EQ(classify_message(link, m_star), Regime::kBalanced);
    // A few ulps either side of a boundary is still on it; a part in a billion is not.
    EXPECT_EQ(classify_message(link, std::nextafter(m_star / 2.0, 0.0)), Regime::kBalanced);
    EXPECT_EQ(classify_message(link, std::nextafter(m_star * 2.0, 1e300)), Regime::kBalanced);
    EXPECT_EQ(classify_message(link, m_star / 2.0 * (1.0 - 1e-9)), Regime::kLatencyBound);
    EXPECT_EQ(classify_message(link, m_star * 2.0 * (1.0 + 1e-9)), Regime::kBandwidthBound);
    EXPECT_EQ(classify_message(link, 0), Regime::kLatencyBound);
    EXPECT_EQ(classify_message(link, 1e15), Regime::kBandwidthBound);
  }
  // Whole-byte boundaries of the Lab 2 link: 31,250 B and 125,000 B are balanced.
  EXPECT_EQ(classify_message(kLab2Link, 31249), Regime::kLatencyBound);
  EXPECT_EQ(classify_message(kLab2Link, 31250), Regime::kBalanced);
  EXPECT_EQ(classify_message(kLab2Link, 125000), Regime::kBalanced);
  EXPECT_EQ(classify_message(kLab2Link, 125001), Regime::kBandwidthBound);
}

TEST(ClassifyMessage, Names) {
  EXPECT_EQ(regime_name(Regime::kLatencyBound), "latency-bound");
  EXPECT_EQ(regime_name(Regime::kBalanced), "balanced");
  EXPECT_EQ(regime_name(Regime::kBandwidthBound), "bandwidth-bound");
}

TEST(LinkErrors, NameTheBadValue) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_NE(input_error_of([] { require_valid(Link{0.0, 25e9}); }).find("alpha = 0"),
            std::string::npos);
  EXPECT_NE(input_error_of([] { require_valid(Link{-1e-6, 25e9}); }).find("alpha = -1e-06"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { require_valid(Link{nan, 25e9}); }).find("alpha = nan"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { require_valid(Link{inf, 25e9}); }).find("alpha = inf"),
            std::string::npos);
  EXPECT_NE(input_error_of([] { require_valid(Link{2.5e-6, 0.0}); }).find("bandwidth = 0"),
            std::string::npos);
  EXPECT_NE(input_error_of([] { require_valid(Link{2.5e-6, -5.0}); }).find("bandwidth = -5"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { require_valid(Link{2.5e-6, inf}); }).find("bandwidth = inf"),
            std::string::npos);
  EXPECT_NE(input_error_of([&] { require_valid(Link{2.5e-6, nan}); }).find("bandwidth = nan"),
            std::string::npos);

  EXPECT_NE(input_error_of([] { message_cost(kLab2Link, -1); }).find("-1 B"), std::string::npos);
  EXPECT_NE(input_error_of([&] { message_cost(kLab2Link, nan); }).find("nan"), std::string::npos);
  EXPECT_NE(input_error_of([&] { message_cost(kLab2Link, inf); }).find("inf"), std::string::npos);
  EXPECT_NE(input_error_of([] { classify_message(kLab2Link, -0.5); }).find("-0.5"),
            std::string::npos);
  EXPECT_NE(input_error_of([] { message_cost(Link{0.0, 1.0}, 1); }).find("alpha"),
            std::string::npos);
  EXPECT_NE(input_error_of([] { crossover_bytes(Link{1.0, -1.0}); }).find("bandwidth"),
            std::string::npos);
  // A cost too large for a double is bad input, not a printed infinity.
  EXPECT_NE(input_error_of([] { message_cost(Link{1e-6, 1e-300}, 1e300); }).find("1e+300"),
            std::string::npos);
}


// ---- Piecewise links ----

// An eager regime (1 us, 5 GB/s) below 4 KiB, a rendezvous regime (4 us, 20 GB/s) from 4 KiB,
// and a third from 1 MiB at 15 GB/s (a cache the buffers no longer fit).
Link three_regimes() {
  const LinkRegime regimes[] = {{0, 1e-6, 5e9, 0, 0},
                                {4096, 4e-6, 20e9, 0, 0},
                                {1048576, 4e-6, 15e9, 0, 0}};
  return piecewise_link(regimes);
}

TEST(PiecewiseLink, EachMessageIsPricedInTheRegimeOfItsSize) {
  const Link link = three_regimes();
  EXPECT_EQ(link.regime_count(), 3u);
  EXPECT_TRUE(link.piecewise());
  EXPECT_FALSE(kLab2Link.piecewise());
  EXPECT_EQ(kLab2Link.regime_count(), 1u);
  // 4095 B: eager. 4096 B, where the second regime starts: rendezvous.
  EXPECT_DOUBLE_EQ(message_cost(link, 4095).total_s, 1e-6 + 4095 / 5e9);
  EXPECT_DOUBLE_EQ(message_cost(link, 4096).total_s, 4e-6 + 4096 / 20e9);
  EXPECT_DOUBLE_EQ(message_cost(link, 1048575).total_s, 4e-6 + 1048575 / 20e9);
  EXPECT_DOUBLE_EQ(message_cost(link, 1048576).total_s, 4e-6 + 1048576 / 15e9);
  EXPECT_DOUBLE_EQ(message_cost(link, 0).total_s, 1e-6);
  EXPECT_EQ(link.regime_index(0), 0u);
  EXPECT_EQ(link.regime_index(4096), 1u);
  EXPECT_EQ(link.regime_index(1e12), 2u);
  const Link one = link.at(5000);
  EXPECT_FALSE(one.piecewise());
  EXPECT_EQ(one.alpha_s, 4e-6);
  EXPECT_EQ(one.bandwidth_Bps, 20e9);
}

TEST(PiecewiseLink, RegimesRoundTripAndTransformTogether) {
  const Link link = three_regimes();
  EXPECT_EQ(link.regime(0), (LinkRegime{0, 1e-6, 5e9, 0, 0}));
  EXPECT_EQ(link.regime(2), (LinkRegime{1048576, 4e-6, 15e9, 0, 0}));
  const Link halved = link.each_regime([](LinkRegime& r) {
    r.bandwidth_Bps /= 2;
    r.from_bytes = 7;  // ignored: a transform never moves a regime
  });
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(halved.regime(i).bandwidth_Bps, link.regime(i).bandwidth_Bps / 2);
    EXPECT_EQ(halved.regime(i).from_bytes, link.regime(i).from_bytes);
    EXPECT_EQ(halved.regime(i).alpha_s, link.regime(i).alpha_s);
  }
}

TEST(PiecewiseLink, CrossoverAndClassificationUseTheMessagesRegime) {
  const Link link = three_regimes();
  // Eager m* = 1 us x 5 GB/s = 5,000 B lies above the eager regime's end (4 KiB); the
  // rendezvous regime's m* = 4 us x 20 GB/s = 80,000 B lies inside it: that is the crossover.
  EXPECT_DOUBLE_EQ(crossover_bytes(link), 80000);
  // 2,000 B: eager regime, m*/2 = 2,500 B, latency-bound. 3,000 B: balanced in that regime.
  EXPECT_EQ(classify_message(link, 2000), Regime::kLatencyBound);
  EXPECT_EQ(classify_message(link, 3000), Regime::kBalanced);
  EXPECT_EQ(classify_message(link, 4096), Regime::kLatencyBound);  // 4 KiB < 40,000 B
  EXPECT_EQ(classify_message(link, 2e6), Regime::kBandwidthBound);  // m* = 60,000 B there
  // The first regime is latency-bound throughout (m* = 1,000 B past its end at 100 B), the
  // second bandwidth-bound from its start (m* = 10 B): the crossover is where it starts.
  const LinkRegime fast[] = {{0, 1e-6, 1e9, 0, 0}, {100, 1e-8, 1e9, 0, 0}};
  EXPECT_DOUBLE_EQ(crossover_bytes(piecewise_link(fast)), 100);
}

TEST(PiecewiseLink, BadRegimesAreRefusedByValue) {
  const LinkRegime not_from_zero[] = {{10, 1e-6, 1e9, 0, 0}};
  EXPECT_TRUE(contains(input_error_of([&] { piecewise_link(not_from_zero); }), "not at 10 B"));
  const LinkRegime descending[] = {{0, 1e-6, 1e9, 0, 0}, {4096, 1e-6, 1e9, 0, 0},
                                   {1024, 1e-6, 1e9, 0, 0}};
  const std::string order = input_error_of([&] { piecewise_link(descending); });
  EXPECT_TRUE(contains(order, "regime 3 starts at 1024 B")) << order;
  const LinkRegime bad_rate[] = {{0, 1e-6, 1e9, 0, 0}, {4096, 1e-6, -2, 0, 0}};
  const std::string rate = input_error_of([&] { piecewise_link(bad_rate); });
  EXPECT_TRUE(contains(rate, "regime 2 (from 4096 B): link bandwidth = -2")) << rate;
  EXPECT_TRUE(contains(input_error_of([] { piecewise_link({}); }), "not 0"));
  std::vector<LinkRegime> many;
  for (std::size_t i = 0; i <= kMaxLinkRegimes; ++i) {
    many.push_back({static_cast<double>(i), 1e-6, 1e9, 0, 0});
  }
  EXPECT_TRUE(contains(input_error_of([&] { piecewise_link(many); }), "not 11"));
}

// L and o each finite but L + 2o past the largest double: the message names L and o, which
// were given, not the alpha they sum to.
TEST(LinkLogGp, AnOverflowingLPlusTwoONamesLAndO) {
  EXPECT_EQ(input_error_of([] { link_from_loggp(1e308, 1e308, 0, 1e9); }),
            "LogGP L + 2o = 1e+308 s + 2 x 1e+308 s is beyond the largest double");
}

}  // namespace
}  // namespace scalewall
