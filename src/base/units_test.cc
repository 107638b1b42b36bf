// Tests of scalewall/base/units.h: every accepted spelling, every rejected one, and the printer.
#include "scalewall/base/units.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

// Parses that must fail with InputError whose message quotes `must_mention`.
void ExpectRejected(double (*parse)(std::string_view), const std::string& text,
                    const std::string& must_mention) {
  try {
    parse(text);
    ADD_FAILURE() << "accepted '" << text << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(must_mention), std::string::npos)
        << "message '" << e.what() << "' does not mention '" << must_mention << "'";
  }
}

TEST(ParseBytes, PlainNumberIsBytes) {
  EXPECT_EQ(parse_bytes("4096"), 4096.0);
  EXPECT_EQ(parse_bytes("0"), 0.0);
  EXPECT_EQ(parse_bytes("1e9"), 1e9);
  EXPECT_EQ(parse_bytes("512 B"), 512.0);
}

TEST(ParseBytes, DecimalPrefixesAreSI) {
  EXPECT_EQ(parse_bytes("14GB"), 14e9);
  EXPECT_EQ(parse_bytes("14 GB"), 14e9);
  EXPECT_EQ(parse_bytes("  14GB  "), 14e9);
  EXPECT_EQ(parse_bytes("62.5KB"), 62500.0);
  EXPECT_EQ(parse_bytes("62.5kB"), 62500.0);
  EXPECT_EQ(parse_bytes("3MB"), 3e6);
  EXPECT_EQ(parse_bytes("2TB"), 2e12);
}

TEST(ParseBytes, BinaryPrefixesArePowersOfTwo) {
  EXPECT_EQ(parse_bytes("1KiB"), 1024.0);
  EXPECT_EQ(parse_bytes("64KiB"), 65536.0);
  EXPECT_EQ(parse_bytes("1MiB"), 1048576.0);
  EXPECT_EQ(parse_bytes("1.5GiB"), 1.5 * 1073741824.0);
  EXPECT_EQ(parse_bytes("1GiB"), 1073741824.0);
}

TEST(ParseBytes, RejectsBadText) {
  ExpectRejected(parse_bytes, "", "empty");
  ExpectRejected(parse_bytes, "   ", "empty");
  ExpectRejected(parse_bytes, "-5", "'-5'");
  ExpectRejected(parse_bytes, "-1GB", "'-1GB'");
  ExpectRejected(parse_bytes, "nan", "'nan'");
  ExpectRejected(parse_bytes, "inf", "'inf'");
  ExpectRejected(parse_bytes, "GB", "'GB'");
  ExpectRejected(parse_bytes, "14XB", "'XB'");
  ExpectRejected(parse_bytes, "14Gb", "'Gb'");  // bits are not a size
  ExpectRejected(parse_bytes, "14 GB extra", "'GB extra'");
  ExpectRejected(parse_bytes, "1e999", "out of range");
}

TEST(ParseUnits, ASignAfterThePlusIsRefused) {
  // from_chars reads a '-' of its own, so "+-5" once parsed as -5.
  for (const char* text : {"+-5", "+-5GB", "++5", "+ 5", "+", "+-0"}) {
    ExpectRejected(parse_bytes, text, std::string("'") + text + "'");
    ExpectRejected(parse_seconds, text, std::string("'") + text + "'");
    ExpectRejected(parse_rate, text, std::string("'") + text + "'");
    ExpectRejected(parse_number, text, std::string("'") + text + "'");
    ExpectRejected(parse_fraction, text, std::string("'") + text + "'");
  }
  ExpectRejected(parse_seconds, "+-5ns", "not followed by a number");
  ExpectRejected(parse_bytes, "+inf", "not a finite number");
  EXPECT_EQ(parse_bytes("+5"), 5.0);
  EXPECT_EQ(parse_seconds("+.5"), 0.5);
  EXPECT_EQ(parse_rate("+2 GB/s"), 2e9);
}

TEST(ParseUnits, AProductPastADoubleIsOutOfRange) {
  // The number is finite, its unit factor takes it past the largest double.
  ExpectRejected(parse_bytes, "1e308kB", "size '1e308kB' is out of range (at most 1.8e+308 B)");
  ExpectRejected(parse_bytes, "1e300 PiB", "'1e300 PiB' is out of range");
  ExpectRejected(parse_seconds, "1e308h", "time '1e308h' is out of range (at most 1.8e+308 s)");
  ExpectRejected(parse_seconds, "1e307min", "out of range");
  ExpectRejected(parse_rate, "1e300TB/s", "rate '1e300TB/s' is out of range");
  ExpectRejected(parse_rate, "1.7e308 Gb/s", "out of range");
  // A non-zero number that its unit takes to 0 is out of range too, not 0.
  ExpectRejected(parse_seconds, "1e-320ns", "time '1e-320ns' is out of range (a non-zero time");
  ExpectRejected(parse_fraction, "1e-322%", "out of range");
  // The largest and smallest that fit are values.
  EXPECT_EQ(parse_bytes("1e305kB"), 1e308);
  EXPECT_GT(parse_seconds("1e-310ns"), 0.0);
  EXPECT_EQ(parse_seconds("0ns"), 0.0);
  EXPECT_TRUE(std::isfinite(parse_bytes("1.7976931348623157e308")));
}

TEST(ParseSeconds, AllSpellings) {
  EXPECT_DOUBLE_EQ(parse_seconds("0.3"), 0.3);
  EXPECT_DOUBLE_EQ(parse_seconds("1.5s"), 1.5);
  EXPECT_DOUBLE_EQ(parse_seconds("300ms"), 0.3);
  EXPECT_DOUBLE_EQ(parse_seconds("2.5us"), 2.5e-6);
  EXPECT_DOUBLE_EQ(parse_seconds("2.5\u00b5s"), 2.5e-6);  // micro sign
  EXPECT_DOUBLE_EQ(parse_seconds("2.5\u03bcs"), 2.5e-6);  // Greek mu
  EXPECT_DOUBLE_EQ(parse_seconds("2.5 us"), 2.5e-6);
  EXPECT_DOUBLE_EQ(parse_seconds("40ns"), 40e-9);
  EXPECT_DOUBLE_EQ(parse_seconds("2min"), 120.0);
  EXPECT_DOUBLE_EQ(parse_seconds("1h"), 3600.0);
}

TEST(ParseSeconds, SubUnitPrefixesAreCorrectlyRounded) {
  // Exactly the double nearest the decimal value, as a literal gives it.
  EXPECT_EQ(parse_seconds("2.5us"), 2.5e-6);
  EXPECT_EQ(parse_seconds("300ms"), 0.3);
  EXPECT_EQ(parse_seconds("30us"), 30e-6);
  EXPECT_EQ(parse_seconds("40ns"), 40e-9);
  EXPECT_EQ(parse_rate("400Gb/s"), 50e9);
}

TEST(ParseSeconds, RejectsBadText) {
  ExpectRejected(parse_seconds, "", "empty");
  ExpectRejected(parse_seconds, "-2.5us", "'-2.5us'");
  ExpectRejected(parse_seconds, "2.5xs", "'xs'");
  ExpectRejected(parse_seconds, "NaN", "'NaN'");
  ExpectRejected(parse_seconds, "us", "'us'");
}

TEST(ParseRate, BytesPerSecond) {
  EXPECT_EQ(parse_rate("25e9"), 25e9);
  EXPECT_EQ(parse_rate("50GB/s"), 50e9);
  EXPECT_EQ(parse_rate("50 GB/s"), 50e9);
  EXPECT_EQ(parse_rate("50GBps"), 50e9);
  EXPECT_EQ(parse_rate("0.125GB/s"), 0.125e9);
  EXPECT_EQ(parse_rate("1PB/s"), 1e15);  // the printer's largest unit reads back
  EXPECT_EQ(parse_rate("2 PBps"), 2e15);
  EXPECT_EQ(parse_rate("1PiB/s"), 1125899906842624.0);
  EXPECT_EQ(parse_rate("1GiB/s"), 1073741824.0);
}

// The outputs print exabytes (format_bytes: "10.4 EB"), so the parsers read them back.
TEST(ParseUnits, ExabytesAsPrinted) {
  EXPECT_EQ(parse_bytes("1EB"), 1e18);
  EXPECT_EQ(parse_bytes("10.4 EB"), 10.4e18);
  EXPECT_EQ(parse_bytes("1EiB"), 1152921504606846976.0);
  EXPECT_EQ(parse_rate("2EB/s"), 2e18);
  EXPECT_EQ(parse_rate("2EBps"), 2e18);
  EXPECT_EQ(parse_rate("1EiB/s"), 1152921504606846976.0);
  EXPECT_EQ(parse_bytes(format_bytes(3e18)), 3e18);
}

TEST(ParseRate, LowerCaseBIsBits) {
  EXPECT_EQ(parse_rate("400Gb/s"), 50e9);
  EXPECT_EQ(parse_rate("400Gbps"), 50e9);
  EXPECT_EQ(parse_rate("100Mbps"), 12.5e6);
  EXPECT_EQ(parse_rate("8b/s"), 1.0);
  EXPECT_EQ(parse_rate("1Gbps"), parse_rate("125MB/s"));
}

TEST(ParseRate, RejectsBadText) {
  ExpectRejected(parse_rate, "", "empty");
  ExpectRejected(parse_rate, "-1GB/s", "'-1GB/s'");
  ExpectRejected(parse_rate, "50GB", "'GB'");  // a size, not a rate
  ExpectRejected(parse_rate, "50 furlongs", "'furlongs'");
  ExpectRejected(parse_rate, "inf GB/s", "'inf GB/s'");
}

TEST(ParseFraction, NumberOrPercent) {
  EXPECT_EQ(parse_fraction("0.05"), 0.05);
  EXPECT_DOUBLE_EQ(parse_fraction("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parse_fraction("0.1 %"), 0.001);
  ExpectRejected(parse_fraction, "5 percent", "'percent'");
  ExpectRejected(parse_fraction, "-0.1", "'-0.1'");
}

TEST(ParseNumber, NoUnitAllowed) {
  EXPECT_EQ(parse_number("0.02"), 0.02);
  EXPECT_EQ(parse_number("1e-3"), 1e-3);
  ExpectRejected(parse_number, "0.02s", "'s'");
  ExpectRejected(parse_number, "", "empty");
}

TEST(ParseCount, WholeNumbersInRange) {
  EXPECT_EQ(parse_count("64", 1, 100), 64);
  EXPECT_EQ(parse_count(" 1 ", 1, 100), 1);
  EXPECT_EQ(parse_count("1099511627776", 1, std::int64_t{1} << 40), std::int64_t{1} << 40);
  EXPECT_THROW(parse_count("0", 1, 100), InputError);
  EXPECT_THROW(parse_count("101", 1, 100), InputError);
  EXPECT_THROW(parse_count("1e3", 1, 10000), InputError);
  EXPECT_THROW(parse_count("6.5", 1, 100), InputError);
  EXPECT_THROW(parse_count("-3", 1, 100), InputError);
  EXPECT_THROW(parse_count("", 1, 100), InputError);
  EXPECT_THROW(parse_count("99999999999999999999999", 1, 100), InputError);
}

TEST(FormatUnits, ThreeSignificantDigitsAndSIPrefixes) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(1), "1 B");
  EXPECT_EQ(format_bytes(62500), "62.5 KB");
  EXPECT_EQ(format_bytes(14e9), "14 GB");
  EXPECT_EQ(format_bytes(1073741824), "1.07 GB");
  EXPECT_EQ(format_bytes(999.7e3), "1 MB");  // rounding carries into the next prefix
  EXPECT_EQ(format_seconds(0.56), "560 ms");
  EXPECT_EQ(format_seconds(2.5e-6), "2.5 us");
  EXPECT_EQ(format_seconds(3600), "3600 s");
  EXPECT_EQ(format_seconds(4e-11), "0.04 ns");
  EXPECT_EQ(format_rate(5e10), "50 GB/s");
  EXPECT_EQ(format_rate(0.125e9), "125 MB/s");
  EXPECT_EQ(format_bytes(123456, 6), "123.456 KB");
}

TEST(FormatPercent, PlainNotationWithThreeSignificantDigits) {
  EXPECT_EQ(format_percent(0.494), "49.4%");
  EXPECT_EQ(format_percent(0.35), "35%");
  EXPECT_EQ(format_percent(1.0), "100%");
  EXPECT_EQ(format_percent(0.0), "0%");
  EXPECT_EQ(format_percent(0.9999), "100%");  // rounding carries, no "100.0%"
  EXPECT_EQ(format_percent(21.104), "2110%");  // validate printed "2.11e+03%"
  EXPECT_EQ(format_percent(123.456), "12300%");
  EXPECT_EQ(format_percent(0.0005), "0.05%");
  EXPECT_EQ(format_percent(2.65e-5), "0.00265%");
  EXPECT_EQ(format_percent(1e-5), "0.001%");
  EXPECT_EQ(format_percent(-0.0171), "-1.71%");
  EXPECT_EQ(format_percent(-2.1104), "-211%");
}

TEST(FormatPercent, TinySharesInPlainNotationDownToAMillionthOfAPercent) {
  // plan --observed printed "2.65e-05% of the one-rank step".
  EXPECT_EQ(format_percent(2.65e-7), "0.0000265%");
  EXPECT_EQ(format_percent(-2.65e-7), "-0.0000265%");
  EXPECT_EQ(format_percent(1e-8), "0.000001%");
  EXPECT_EQ(format_percent(4e-9), "< 0.000001%");
  EXPECT_EQ(format_percent(-4e-9), "> -0.000001%");
  EXPECT_EQ(format_percent(4.9e-324), "< 0.000001%");
}

TEST(FormatPercent, NeverAnExponentUpToABillionPercent) {
  EXPECT_EQ(format_percent(1e6), "100000000%");
  for (const double f : {1e-3, 0.123456, 3.3, 47.0, 999.0, 1e6}) {
    EXPECT_EQ(format_percent(f).find('e'), std::string::npos) << f;
  }
  EXPECT_LE(format_percent(1e300).size(), 12u);
}

TEST(FormatUnits, HugeAndTinyValuesPrintInFewCharacters) {
  // Integer digits in full up to 9 of them; past that an exponent, never hundreds of digits.
  EXPECT_EQ(format_seconds(999999999), "999999999 s");
  EXPECT_EQ(format_seconds(1e9), "1e+09 s");
  EXPECT_EQ(format_seconds(1.5e12), "1.5e+12 s");
  EXPECT_EQ(format_seconds(1e300), "1e+300 s");
  EXPECT_EQ(format_bytes(1e300), "1e+282 EB");
  EXPECT_EQ(format_rate(1.7976931348623157e308), "1.8e+293 PB/s");
  EXPECT_EQ(format_seconds(-1e300), "-1e+300 s");
  EXPECT_EQ(format_seconds(1e-300), "1e-291 ns");
  EXPECT_EQ(format_bytes(4.9e-324), "4.94e-324 B");
  for (const double v : {1e20, 1e100, 1e300, std::numeric_limits<double>::max()}) {
    EXPECT_LE(format_seconds(v).size(), 12u) << v;
    EXPECT_LE(format_bytes(v).size(), 12u) << v;
    EXPECT_LE(format_rate(v).size(), 14u) << v;
    EXPECT_LE(format_seconds(v, 17).size(), 26u) << v;
    EXPECT_NEAR(parse_seconds(format_seconds(v, 17)), v, v * 1e-15) << v;
  }
}

TEST(FormatUnits, PrintedValuesParseBack) {
  for (double v : {1.0, 62500.0, 14e9, 3.3e6, 7.77e12}) {
    EXPECT_NEAR(parse_bytes(format_bytes(v, 17)), v, v * 1e-15) << v;
  }
  for (double v : {2.5e-6, 0.3, 1.25e-9, 42.0}) {
    EXPECT_NEAR(parse_seconds(format_seconds(v, 17)), v, v * 1e-15) << v;
  }
  for (double v : {25e9, 0.125e9, 1.0}) {
    EXPECT_NEAR(parse_rate(format_rate(v, 17)), v, v * 1e-15) << v;
  }
}

TEST(ParseSiCount, DecimalMultipliersAndABillion) {
  EXPECT_EQ(parse_si_count("15T"), 15e12);
  EXPECT_EQ(parse_si_count("15 T"), 15e12);
  EXPECT_EQ(parse_si_count("300B"), 300e9);
  EXPECT_EQ(parse_si_count("300G"), 300e9);
  EXPECT_EQ(parse_si_count("2.5M"), 2.5e6);
  EXPECT_EQ(parse_si_count("4k"), 4e3);
  EXPECT_EQ(parse_si_count("4K"), 4e3);
  EXPECT_EQ(parse_si_count("1P"), 1e15);
  EXPECT_EQ(parse_si_count("4096"), 4096.0);
  EXPECT_EQ(parse_si_count("1.5e13"), 1.5e13);
}

TEST(ParseSiCount, RejectsWhatIsNoCount) {
  ExpectRejected(parse_si_count, "", "empty");
  ExpectRejected(parse_si_count, "-15T", "negative");
  ExpectRejected(parse_si_count, "15TB", "unknown unit 'TB'");
  ExpectRejected(parse_si_count, "15t", "unknown unit 't'");
  ExpectRejected(parse_si_count, "T", "does not start with a number");
  ExpectRejected(parse_si_count, "1e308P", "out of range");
  ExpectRejected(parse_si_count, "nanT", "not a finite number");
}

TEST(Units, RatioIsANumberOrAColonPair) {
  EXPECT_EQ(parse_ratio("2"), 2.0);
  EXPECT_EQ(parse_ratio("2:1"), 2.0);
  EXPECT_EQ(parse_ratio("3:2"), 1.5);
  EXPECT_EQ(parse_ratio("0.5"), 0.5);
  try {
    parse_ratio("1:0");
    ADD_FAILURE() << "accepted 1:0";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "ratio '1:0' divides by zero");
  }
  EXPECT_THROW(parse_ratio("2:x"), InputError);
  EXPECT_THROW(parse_ratio(":1"), InputError);
}

}  // namespace
}  // namespace scalewall
