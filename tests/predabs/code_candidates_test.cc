// Unit tests of what the code says for candidate invariants (invariants/code_candidates.h): the
// template's control flow, what a statement writes, the guards that hold on every way into a
// location; and (instance_candidates.h) the candidates of a location no instance reached, read
// off its predecessors.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "interp/program.h"
#include "invariants/code_candidates.h"
#include "invariants/instance_candidates.h"

namespace druba::predabs {
namespace {

std::uint32_t LocationOf(const Program& p, const std::string& label) {
  for (std::uint32_t pc = 0; pc < p.statements.size(); ++pc) {
    if (p.PcName(pc) == label) return pc;
  }
  ADD_FAILURE() << "no label " << label;
  return 0;
}

bool Holds(const std::vector<std::string>& all, const std::string& one) {
  return std::find(all.begin(), all.end(), one) != all.end();
}

// A counter under a lock that stops short of its largest value, as SV-COMP's 01_inc: `inc` is
// reached only past the guard, which `v := value` does not write, so it holds at `add` too; the
// increment writes `value` and ends it; the locations without the guard on every way in (the
// loop's head, where `done` also leads) get none, nor does `test`: the lock's `assume m == 0`
// is over once it writes m.
constexpr const char* kCounter =
    "shared int value = 0;\nshared int m = 0;\nlocal int v = 0;\nthread T * 1.. {\n"
    "  lock: atomic { assume m == 0; m := 1 };\n"
    "  test: if !(value == 7) then goto inc;\n"
    "  done: atomic { m := 0; goto lock };\n"
    "  inc: v := value;\n"
    "  add: value := v + 1;\n"
    "  rel: m := 0;\n"
    "  check: assert value > v;\n"
    "}\n";

TEST(CodeCandidatesTest, GuardsHoldUntilWhatTheyReadIsWritten) {
  const Program p = ParseProgram(kCounter, "counter.drb");
  std::vector<std::uint32_t> named;
  std::vector<std::string> labels;
  for (const char* label : {"lock", "test", "done", "inc", "add", "rel", "check"}) {
    named.push_back(LocationOf(p, label));
    labels.emplace_back(label);
  }
  std::vector<std::string> out;
  GuardCandidates(p, named, labels, out);
  EXPECT_TRUE(Holds(out, "pc[self] != inc || !(value == 7)")) << testing::PrintToString(out);
  EXPECT_TRUE(Holds(out, "pc[self] != add || !(value == 7)")) << testing::PrintToString(out);
  EXPECT_TRUE(Holds(out, "pc[self] != done || !(!(value == 7))")) << testing::PrintToString(out);
  for (const std::string& c : out) {
    EXPECT_EQ(c.find("pc[self] != test"), std::string::npos) << c;   // m written after the assume
    EXPECT_EQ(c.find("pc[self] != rel"), std::string::npos) << c;    // value written
    EXPECT_EQ(c.find("pc[self] != lock"), std::string::npos) << c;   // the entry: nothing
    EXPECT_EQ(c.find("pc[self] != check"), std::string::npos) << c;  // nothing guards it
  }
}

TEST(CodeCandidatesTest, FlowAndWrites) {
  const Program p = ParseProgram(kCounter, "counter.drb");
  const CodeFlow flow = CodeFlowOf(p);
  const std::uint32_t test = LocationOf(p, "test");
  EXPECT_EQ(flow.successors[test],
            (std::vector<std::uint32_t>{LocationOf(p, "done"), LocationOf(p, "inc")}));
  EXPECT_EQ(flow.successors[LocationOf(p, "done")],
            std::vector<std::uint32_t>{LocationOf(p, "lock")});
  EXPECT_EQ(flow.predecessors[LocationOf(p, "lock")],
            std::vector<std::uint32_t>{LocationOf(p, "done")});
  const VariableKey value{VariableKey::Kind::kShared, 0};
  const VariableKey v{VariableKey::Kind::kLocal, 0};
  EXPECT_TRUE(flow.Writes(LocationOf(p, "add"), value));
  EXPECT_FALSE(flow.Writes(LocationOf(p, "inc"), value));
  EXPECT_TRUE(flow.Writes(LocationOf(p, "inc"), v));
  EXPECT_FALSE(flow.Writes(test, value));
}

// No instance reaches `done` (value never gets to 7 with few threads), yet the lock holds there:
// its predecessor `test` shows m == 1 and another thread never at `test` beside it, and the
// candidates say so beside "no thread is there".
TEST(CodeCandidatesTest, AnUnreachedLocationTakesWhatItsPredecessorsShowed) {
  const Program p = ParseProgram(kCounter, "counter.drb");
  CandidateReader reader(p);
  for (std::uint32_t n = 1; n <= 2; ++n) {
    OrderedFigures::Instance figures;
    ASSERT_FALSE(reader.Explore(n, nullptr, figures, 2000));
  }
  const std::vector<std::string> out = reader.Candidates();
  EXPECT_TRUE(Holds(out, "pc[self] != done")) << testing::PrintToString(out);
  EXPECT_TRUE(Holds(out, "pc[self] != done || m == 1")) << testing::PrintToString(out);
  EXPECT_TRUE(Holds(out, "forall j: j <= self || pc[self] != done || pc[j] != test"))
      << testing::PrintToString(out);
  EXPECT_TRUE(Holds(out, "forall j: j <= self || pc[self] != test || pc[j] != done"))
      << testing::PrintToString(out);
}

}  // namespace
}  // namespace druba::predabs
