// The kind-free report (src/run/report.h) on hand-made runs: the verdict first; a kind's sections
// go where they say (with the verdict's why, or after the trace, in the text; in order after "runs"
// in the JSON), the kind's list of disrespecting actions replaces the run's, its `next:` line
// replaces the generic one, and the output files are written from the report alone.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "run/front_end.h"
#include "run/report.h"

namespace druba::run {
namespace {

Report Unknown() {
  Report report;
  report.options.model = "m.x";
  report.subject = "2 threads";
  report.verdict = Verdict::kUnknown;
  report.reason = "the reached abstract states are not closed";
  CountRun run;
  run.threads = 2;
  run.result.verdict = Verdict::kUnknown;
  run.closure_break = ClosureBreak{"a", "step", "b"};
  run.disrespecting = {"the run's action"};
  report.list_abstract = true;
  report.runs.push_back(run);
  return report;
}

TEST(ReportTest, SectionsGoWhereTheKindSays) {
  Report report = Unknown();
  report.sections.push_back({"first", {{"x", 1}}, "why\n", Section::Place::kWhy});
  report.sections.push_back({"second", {{"y", 2}}, "detail\n", Section::Place::kDetail});
  const std::string text = TextReport(report);
  // The verdict first (after the line naming the run), then the kind's why, then its detail,
  // then the figures.
  const std::size_t verdict = text.find("verdict: unknown");
  const std::size_t why = text.find("why\n");
  const std::size_t detail = text.find("detail\n");
  const std::size_t figures = text.find("statistics:");
  ASSERT_NE(why, std::string::npos);
  ASSERT_NE(detail, std::string::npos);
  EXPECT_EQ(verdict, text.find('\n') + 1) << text;
  EXPECT_LT(verdict, why);
  EXPECT_LT(why, detail);
  EXPECT_LT(detail, figures);
  const std::string json = JsonReport(report);
  EXPECT_NE(json.find(R"("first":{"x":1},"second":{"y":2})"), std::string::npos) << json;
}

TEST(ReportTest, TheKindsListAndNextLineReplaceTheGenericOnes) {
  Report report = Unknown();
  std::string text = TextReport(report);
  EXPECT_NE(text.find("actions that disrespect the abstraction (1):\n  the run's action"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(NextAfterClosureBreak()), std::string::npos) << text;
  report.disrespecting = std::vector<std::string>{"the kind's action"};
  report.disrespecting_scope = " across thread counts";
  report.next = "next: the kind's advice\n";
  text = TextReport(report);
  EXPECT_NE(text.find("actions that disrespect the abstraction across thread counts (1):\n"
                      "  the kind's action"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("the run's action"), std::string::npos) << text;
  EXPECT_NE(text.find("next: the kind's advice\n"), std::string::npos) << text;
  EXPECT_EQ(text.find(NextAfterClosureBreak()), std::string::npos) << text;
}

// A run the command line's default time limit stopped says so, and how to give it longer; one the
// user's limit stopped offers a larger limit.
TEST(ReportTest, TheDefaultTimeLimitIsNamedWhenItStopsARun) {
  Report report;
  report.runs.emplace_back();
  report.verdict = Verdict::kUnknown;
  report.reason = "time limit of 300 s reached";
  report.options.time_limit_s = kDefaultTimeLimitS;
  report.options.time_limit_default = true;
  std::string text = TextReport(report);
  EXPECT_NE(text.find("next: the run stopped at the default time limit of 300 s: --time-limit "
                      "SEC gives it longer (0: no limit)"),
            std::string::npos)
      << text;
  report.options.time_limit_default = false;
  text = TextReport(report);
  EXPECT_EQ(text.find("default time limit"), std::string::npos) << text;
  EXPECT_NE(text.find("next: a larger --time-limit"), std::string::npos) << text;
}

TEST(ReportTest, OutputFilesComeFromTheReport) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("druba-report-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       "-" + std::to_string(reinterpret_cast<std::uintptr_t>(&dir)));
  std::filesystem::create_directories(dir);
  Report report = Unknown();
  report.runs.back().abstract_states = {"a", "b"};
  report.options.dump_abstract = (dir / "dump.txt").string();
  report.options.certificate = (dir / "cert.json").string();  // not safe: not written
  EXPECT_TRUE(WriteOutputFiles(report).empty());
  std::ifstream in(report.options.dump_abstract);
  std::stringstream dump;
  dump << in.rdbuf();
  EXPECT_EQ(dump.str(), DumpHeader(report.verdict, report.reason, Proof::kNone) + "a\nb\n");
  EXPECT_FALSE(std::filesystem::exists(report.options.certificate));
  std::filesystem::remove_all(dir);
}

// The trace's headline says how it was shortened, and not "shortened from the run found (37)" for
// a trace of 37 statements.
TEST(ReportTest, TheTraceHeadlineSaysHowTheTraceWasShortened) {
  CountRun run;
  run.trace.resize(3);
  run.trace[0].kind = TraceStep::Kind::kInitial;
  run.trace_statements = 2;
  run.trace_found_statements = 2;
  EXPECT_NE(TraceHeadline(run).find(
                "2 statements, the run found; not known to be the fewest (--shortest finds them)"),
            std::string::npos)
      << TraceHeadline(run);
  run.trace_found_statements = 5;
  EXPECT_NE(TraceHeadline(run).find("shortened from the run found (5); not known"),
            std::string::npos);
  run.trace_search_stopped = true;
  EXPECT_NE(TraceHeadline(run).find("(5); a limit stopped the search for the fewest"),
            std::string::npos);
  run.trace_fewest = true;
  EXPECT_NE(TraceHeadline(run).find("the fewest of any violating run (the run found had 5)"),
            std::string::npos);
}

}  // namespace
}  // namespace druba::run
