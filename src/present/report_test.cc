// Tests of scalewall/present/report.h: each format, line by line.
#include "scalewall/present/report.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "scalewall/base/error.h"

namespace scalewall {
namespace {

Report SampleReport() {
  Report r;
  r.command = "demo";
  r.kind = Kind::kModel;
  r.banner = model_banner();
  r.title = "a demonstration";
  r.inputs["bytes"] = 4096;
  Table t{"rows",
          {{"bytes", "size", Unit::kBytes},
           {"total_s", "total", Unit::kSeconds},
           {"regime", "regime", Unit::kText}},
          {},
          {}};
  t.add_row({62500.0, 5e-6, std::string("balanced")}, "<-- crossover");
  t.add_row({std::int64_t{1}, 2.50004e-6, std::string("latency-bound, small")});
  r.tables.push_back(t);
  r.add_field("crossover_bytes", "crossover", Unit::kBytes, 62500.0);
  r.add_field("tie_bytes", "tie", Unit::kBytes, Value{}, "no tie");
  r.notes.push_back("a note");
  return r;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Report, TableFormatLineByLine) {
  std::ostringstream out;
  write_table(SampleReport(), out);
  const auto lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 11u) << out.str();
  EXPECT_EQ(lines[0], "# MODEL: analytic prediction, not a measurement");
  EXPECT_EQ(lines[1], "# a demonstration");
  EXPECT_EQ(lines[2], "");
  EXPECT_EQ(lines[3], "   size   total  regime");
  EXPECT_EQ(lines[4], "62.5 KB    5 us  balanced              <-- crossover");
  EXPECT_EQ(lines[5], "    1 B  2.5 us  latency-bound, small");
  EXPECT_EQ(lines[6], "");
  EXPECT_EQ(lines[7], "crossover:  62.5 KB");
  EXPECT_EQ(lines[8], "tie:        no tie");
  EXPECT_EQ(lines[9], "");
  EXPECT_EQ(lines[10], "# a note");
}

TEST(Report, CsvIsTheFirstTableWithKeysAndFullPrecision) {
  std::ostringstream out;
  write_csv(SampleReport(), out);
  EXPECT_EQ(out.str(),
            "bytes,total_s,regime\n"
            "62500,5e-06,balanced\n"
            "1,2.50004e-06,\"latency-bound, small\"\n");
}

TEST(Report, JsonEnvelopeThenFieldsThenTables) {
  const auto j = to_json(SampleReport());
  const std::vector<std::string> expected_order = {
      "tool", "version", "command", "kind", "inputs", "crossover_bytes", "tie_bytes", "rows"};
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, expected_order);
  EXPECT_EQ(j["tool"], "scalewall");
  EXPECT_EQ(j["version"], SCALEWALL_VERSION);
  EXPECT_EQ(j["command"], "demo");
  EXPECT_EQ(j["kind"], "model");
  EXPECT_EQ(j["inputs"]["bytes"], 4096);
  EXPECT_EQ(j["crossover_bytes"], 62500.0);
  EXPECT_TRUE(j["tie_bytes"].is_null());
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][1]["bytes"], 1);
  EXPECT_EQ(j["rows"][0]["regime"], "balanced");
  // The writer prints one parseable object.
  std::ostringstream out;
  write_json(SampleReport(), out);
  EXPECT_EQ(nlohmann::ordered_json::parse(out.str()), j);
}

// A report with a warning and the files it read, as a command with measurements builds it.
Report WarnedReport() {
  Report r = SampleReport();
  r.extra["detail"] = nlohmann::ordered_json::object({{"depth", 2}});
  r.add_list("sources", "source", {"run.jsonl (scalewall-mpi collective)"});
  r.add_list("warnings", "warning", {"run.jsonl: incomplete (no end record)"});
  r.add_list("skipped", "left out", {});
  return r;
}

TEST(Report, TableFormatShowsTheListsBeforeTheNotes) {
  std::ostringstream out;
  write_table(WarnedReport(), out);
  const auto lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 13u) << out.str();
  EXPECT_EQ(lines[9], "");
  EXPECT_EQ(lines[10], "# source: run.jsonl (scalewall-mpi collective)");
  EXPECT_EQ(lines[11], "# warning: run.jsonl: incomplete (no end record)");
  EXPECT_EQ(lines[12], "# a note");
}

TEST(Report, CsvCarriesTheListsAsCommentLinesAfterTheRows) {
  std::ostringstream out;
  write_csv(WarnedReport(), out);
  EXPECT_EQ(out.str(),
            "bytes,total_s,regime\n"
            "62500,5e-06,balanced\n"
            "1,2.50004e-06,\"latency-bound, small\"\n"
            "# source: run.jsonl (scalewall-mpi collective)\n"
            "# warning: run.jsonl: incomplete (no end record)\n");
}

TEST(Report, JsonWritesTheListsLastEvenWhenEmpty) {
  const auto j = to_json(WarnedReport());
  std::vector<std::string> keys;
  for (const auto& [k, v] : j.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"tool", "version", "command", "kind", "inputs",
                                            "crossover_bytes", "tie_bytes", "rows", "detail",
                                            "sources", "warnings", "skipped"}));
  EXPECT_EQ(j["warnings"], nlohmann::ordered_json::array({"run.jsonl: incomplete (no end record)"}));
  EXPECT_EQ(j["skipped"], nlohmann::ordered_json::array());
  EXPECT_EQ(j["detail"]["depth"], 2);
}

TEST(Report, ATableWithOnlyListsStillSeparatesThem) {
  Report r;
  r.banner = model_banner();
  r.add_list("warnings", "warning", {"w"});
  std::ostringstream out;
  write_table(r, out);
  EXPECT_EQ(out.str(), "# MODEL: analytic prediction, not a measurement\n\n# warning: w\n");
}

TEST(Report, NonFiniteNumbersAreRefusedNotPrinted) {
  Report r = SampleReport();
  r.tables[0].rows[0][1] = std::nan("");
  std::ostringstream out;
  // A broken invariant: the one check aborts, naming the key.
  const char* said = "internal check failed: .* non-finite value in output key 'total_s'";
  EXPECT_DEATH(write_json(r, out), said);
  EXPECT_DEATH(write_csv(r, out), said);
  EXPECT_DEATH(write_table(r, out),
               "internal check failed: .* non-finite value in output key 'table cell'");
}

// Names from input (an algorithm, a scenario, a file) reach the table with their control
// characters written visibly: no escape sequence reaches the terminal and no line break
// breaks the table; UTF-8 stays as it is. JSON escapes them and writes U+FFFD for a byte that
// is not UTF-8.
TEST(Report, TheTableWritesControlCharactersVisibly) {
  Report r = SampleReport();
  r.title = "job \x1b]52;c;cHduZWQ=\x07\x1b[2J";
  r.tables[0].rows[1][2] = std::string("ring\nx\r\t\x7f \u00e9 \u009b \xff");
  r.tables[0].marks[1] = "\x1b[31m";
  r.add_field("host", "host", Unit::kText, std::string("n\x1b[2J"));
  r.add_list("sources", "source", {"a\nb.txt"});
  r.notes.push_back("note\r");
  std::ostringstream out;
  write_table(r, out);
  for (const char c : out.str()) {
    const auto byte = static_cast<unsigned char>(c);
    EXPECT_FALSE((byte < 0x20 && c != '\n') || byte == 0x7F) << int{byte};
  }
  const std::string text = out.str();
  EXPECT_NE(text.find("# job \\x1b]52;c;cHduZWQ=\\x07\\x1b[2J\n"), std::string::npos) << text;
  EXPECT_NE(text.find("ring\\nx\\r\\t\\x7f \u00e9 \\u009b \\xff"), std::string::npos) << text;
  EXPECT_NE(text.find("  \\x1b[31m\n"), std::string::npos) << text;
  EXPECT_NE(text.find("n\\x1b[2J\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# source: a\\nb.txt\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# note\\r\n"), std::string::npos) << text;
  EXPECT_EQ(Lines(text).size(), Lines([] {
              std::ostringstream plain;
              Report p = SampleReport();
              p.add_field("host", "host", Unit::kText, std::string("n"));
              p.add_list("sources", "source", {"ab.txt"});
              p.notes.push_back("note");
              write_table(p, plain);
              return plain.str();
            }()).size());
  std::ostringstream json;
  write_json(r, json);
  EXPECT_EQ(json.str().find('\x1b'), std::string::npos);
  EXPECT_NE(json.str().find("n\\u001b[2J"), std::string::npos) << json.str();
  EXPECT_NE(json.str().find("\xef\xbf\xbd"), std::string::npos) << json.str();  // U+FFFD
}

TEST(Report, TheInternalCheckNamesTheSourceByItsPathInTheProject) {
  Report r = SampleReport();
  r.tables[0].rows[0][1] = std::nan("");
  std::ostringstream out;
  // "at src/...", never the build's "../src/..." or an absolute path.
  EXPECT_DEATH(write_table(r, out), "internal check failed: std::isfinite\\(value\\) at "
                                    "src/present/report\\.cc:[0-9]+: non-finite value");
}

TEST(Report, AModelReportSaysItIsAModel) {
  const Report r = model_report("scaling");
  EXPECT_EQ(r.command, "scaling");
  EXPECT_EQ(r.kind, Kind::kModel);
  EXPECT_EQ(r.banner, "MODEL: analytic prediction, not a measurement");
  EXPECT_TRUE(r.tables.empty());
}

TEST(Report, KindsAndBanners) {
  EXPECT_EQ(kind_name(Kind::kModel), "model");
  EXPECT_EQ(kind_name(Kind::kSimulation), "simulation");
  EXPECT_EQ(kind_name(Kind::kMeasurement), "measurement");
  EXPECT_EQ(simulation_banner(42), "SIMULATION (seed 42): Monte Carlo estimate, not a measurement");
  EXPECT_EQ(measurement_banner("ping-pong"), "MEASUREMENT: ping-pong");
}

TEST(Report, FormatNames) {
  EXPECT_EQ(parse_format("table"), Format::kTable);
  EXPECT_EQ(parse_format("csv"), Format::kCsv);
  EXPECT_EQ(parse_format("json"), Format::kJson);
  EXPECT_THROW(parse_format("xml"), InputError);
  EXPECT_THROW(parse_format(""), InputError);
}

TEST(Report, CellFormats) {
  EXPECT_EQ(format_cell(Value{}, Unit::kPlain), "-");
  EXPECT_EQ(format_cell(true, Unit::kText), "yes");
  EXPECT_EQ(format_cell(std::int64_t{1024}, Unit::kCount), "1024");
  EXPECT_EQ(format_cell(19.6375, Unit::kRatio), "19.64x");
  EXPECT_EQ(format_cell(0.494315, Unit::kFraction), "49.4%");
  EXPECT_EQ(format_cell(14e9, Unit::kBytes), "14 GB");
  EXPECT_EQ(format_cell(0.56, Unit::kSeconds), "560 ms");
  EXPECT_EQ(format_cell(5e10, Unit::kRate), "50 GB/s");
}

}  // namespace
}  // namespace scalewall
