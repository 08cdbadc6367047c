// Unit tests of the candidates that block counterexamples to induction
// (invariants/cube_candidates.h): a state's cube over a pair of threads, generalized while no
// explored state matches it, as `.drb` text.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "interp/program.h"
#include "invariants/cube_candidates.h"
#include "invariants/instance_candidates.h"

namespace druba::predabs {
namespace {

std::int64_t PcOf(const Program& p, const std::string& label) {
  for (std::uint32_t pc = 0; pc < p.statements.size(); ++pc) {
    if (p.PcName(pc) == label) return pc;
  }
  ADD_FAILURE() << "no label " << label;
  return 0;
}

// A lock taken by storing one's id: no two threads are ever in `cs`, and one is there only with
// `owner` its id. A state with both in `cs` generalizes to "no two threads in cs" (the owner's
// value, the order of the two and each location alone are dropped: states of 2 and 3 threads
// match the cube without them); a reached state blocks nothing.
TEST(CubeBlockerTest, TwoInTheLockGeneralizeToMutualExclusion) {
  const Program p = ParseProgram(
      "shared int owner = -1;\nthread T * 2 {\n  a: atomic { await owner == -1; owner := self };\n"
      "  cs: assert forall i != self: pc[i] != cs;\n  r: owner := -1;\n  again: goto a;\n}\n",
      "lock.drb");
  CandidateReader reader(p);
  for (std::uint32_t n = 2; n <= 3; ++n) {
    OrderedFigures::Instance figures;
    ASSERT_FALSE(reader.Explore(n, nullptr, figures));
    ASSERT_TRUE(figures.complete);
  }
  const CubeBlocker& blocker = reader.Blocker();
  ConcreteState both{2, {PcOf(p, "cs"), PcOf(p, "cs")}, {}, {Int(0)}, 1};
  bool seen = true;
  EXPECT_EQ(blocker.Block(both, &seen),
            std::vector<std::string>{"forall j: j == self || pc[self] != cs || pc[j] != cs"});
  EXPECT_FALSE(seen);
  ConcreteState reached{2, {PcOf(p, "cs"), PcOf(p, "a")}, {}, {Int(0)}, 1};
  EXPECT_TRUE(blocker.Block(reached, &seen).empty());
  EXPECT_TRUE(seen);
}

// A counter that names no thread: a value never reached generalizes to a range, not to that one
// value (blocking 5, then 6, then 7, ... would never end); a local's literal keeps its thread's
// location (the value says something only where the local is live).
TEST(CubeBlockerTest, ValuesGeneralizeToRanges) {
  const Program p = ParseProgram(
      "shared int x = 0;\nlocal int seen = 0;\nthread T * 2 {\n  a: x := x + 1;\n"
      "  b: seen := x;\n  c: assert seen < 5;\n}\n",
      "counter.drb");
  CandidateReader reader(p);
  OrderedFigures::Instance figures;
  ASSERT_FALSE(reader.Explore(2, nullptr, figures));
  const CubeBlocker& blocker = reader.Blocker();
  ConcreteState high{2, {PcOf(p, "b"), PcOf(p, "a")}, {Int(0), Int(0)}, {Int(7)}, 0};
  EXPECT_EQ(blocker.Block(high), std::vector<std::string>{"x < 7"});
  ConcreteState local{2, {PcOf(p, "c"), PcOf(p, "c")}, {Int(9), Int(9)}, {Int(2)}, 0};
  EXPECT_EQ(blocker.Block(local), std::vector<std::string>{"pc[self] != c || seen[self] < 9"});
}

}  // namespace
}  // namespace druba::predabs
