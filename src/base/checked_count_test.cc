#include "scalewall/base/checked_count.h"

#include <gtest/gtest.h>

#include <limits>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(CheckedCount, ExactProductsAndSums) {
  EXPECT_EQ(try_mul(std::int64_t{1} << 20, std::int64_t{1} << 20), std::int64_t{1} << 40);
  EXPECT_EQ(try_mul(kMax, 1), kMax);
  EXPECT_EQ(try_mul(0, kMax), 0);
  EXPECT_EQ(try_add(kMax - 1, 1), kMax);
  EXPECT_EQ(checked_mul(16777216, 1536, "dp x micro-batch"), std::int64_t{25769803776});
}

TEST(CheckedCount, ProductsThatWouldWrapAreRefused) {
  // 2^24 x 2^40 = 2^64 wraps to 0 in 64-bit arithmetic; 2^32 x 2^32 likewise.
  EXPECT_EQ(try_mul(std::int64_t{1} << 24, std::int64_t{1} << 40), std::nullopt);
  EXPECT_EQ(try_mul(std::int64_t{1} << 32, std::int64_t{1} << 32), std::nullopt);
  EXPECT_EQ(try_mul(kMax / 2 + 1, 2), std::nullopt);
  EXPECT_EQ(try_add(kMax, 1), std::nullopt);
}

TEST(CheckedCount, TheErrorNamesWhatAndBothOperands) {
  try {
    checked_mul(std::int64_t{1} << 32, std::int64_t{1} << 32, "tp x pp");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "tp x pp = 4294967296 x 4294967296 is past the largest count (2^63 - 1)");
  }
  try {
    checked_add(kMax, 2, "tokens");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "tokens = 9223372036854775807 + 2 is past the largest count (2^63 - 1)");
  }
}

}  // namespace
}  // namespace scalewall
