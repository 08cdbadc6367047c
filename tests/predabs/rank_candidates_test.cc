// Unit tests of the candidates read off the finite instances for programs that count threads by
// rank (invariants/rank_candidates.h, invariants/instance_candidates.h): the filter lock for N,
// whose levels grow with the thread count, against Szymanski's, whose flags do not.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/files.h"
#include "interp/program.h"
#include "invariants/instance_candidates.h"

namespace druba::predabs {
namespace {

constexpr const char* kFilterLock =
    "shared int level[threads] = -1;\n"
    "shared int victim[threads] = -1;\n"
    "local int lv = 0;\n"
    "thread T * 2 {\n"
    "  while true do {\n"
    "    start: lv := 0;\n"
    "    climb: while lv < count(i: true) - 1 do {\n"
    "      raise: level[self] := lv;\n"
    "      yield: victim[lv] := self;\n"
    "      wait: await (forall k != self: level[k] < lv) || victim[lv] != self;\n"
    "      up: lv := lv + 1;\n"
    "    }\n"
    "    crit: assert forall j != self: pc[j] != crit;\n"
    "    exit: level[self] := -1;\n"
    "  }\n"
    "}\n";

// The candidates read off `program` at 2 and 3 threads (4 threads, 142545 states, took 45 s per
// test under the sanitizers); whether it counts threads by rank.
std::vector<std::string> Read(const Program& program, bool* ranks) {
  CandidateReader reader(program);
  for (std::uint32_t n = 2; n <= 3; ++n) {
    OrderedFigures::Instance figures;
    EXPECT_FALSE(reader.Explore(n, nullptr, figures));
  }
  *ranks = reader.CountsByRank();
  return reader.Candidates();
}

bool Has(const std::vector<std::string>& all, const std::string& text) {
  return std::find(all.begin(), all.end(), text) != all.end();
}

TEST(RankCandidatesTest, TheFilterLockGetsItsRankCandidateAndNoneItImplies) {
  const Program program = ParseProgram(kFilterLock, "filter.drb");
  bool ranks = false;
  const std::vector<std::string> all = Read(program, &ranks);
  EXPECT_TRUE(ranks);
  EXPECT_TRUE(Has(all,
                  "forall j: count(k: level[k] > j || level[k] >= j && pc[k] != yield && pc[k] != "
                  "wait) <= count(k: true) - 1 - j"));
  // Offset 0 is implied by offset -1 one level below: left out.
  EXPECT_FALSE(Has(all, "forall j: count(k: level[k] > j || level[k] >= j) <= count(k: true) - j"));
  // The other ingredients of its proof.
  EXPECT_TRUE(Has(all, "pc[self] != wait || victim[lv] >= 0"));
  EXPECT_TRUE(Has(all, "pc[self] != raise || level[self] == lv[self] - 1"));
  EXPECT_TRUE(Has(all, "pc[self] != up || lv[self] < count(j: true) - 1"));
}

// A level's largest value grows with the count (0 at 2 threads, 1 at 3): a bound or a list of
// the values seen says nothing of larger counts, and is not proposed.
TEST(RankCandidatesTest, NoConstantBoundOnAValueThatGrowsWithTheCount) {
  const Program program = ParseProgram(kFilterLock, "filter.drb");
  bool ranks = false;
  const std::vector<std::string> all = Read(program, &ranks);
  for (const std::string& c : all) {
    EXPECT_EQ(c.find("level[self] <= 1"), std::string::npos) << c;
    EXPECT_EQ(c.find("level[self] == 1"), std::string::npos) << c;
  }
  EXPECT_TRUE(Has(all, "pc[self] != climb || level[self] >= -1"));
}

// Szymanski's flags take the same values at every count: no level, no rank candidate (and so no
// fourth instance, ordered_invariant.h).
TEST(RankCandidatesTest, FlagsAreNoLevels) {
  const std::string path = std::string(DRUBA_SOURCE_DIR) + "/models/szymanski.drb";
  const Program program = ParseProgram(ReadFile(path), path);
  bool ranks = true;
  const std::vector<std::string> all = Read(program, &ranks);
  EXPECT_FALSE(ranks);
  for (const std::string& c : all) EXPECT_EQ(c.find("count(k: flag[k]"), std::string::npos) << c;
}

}  // namespace
}  // namespace druba::predabs
