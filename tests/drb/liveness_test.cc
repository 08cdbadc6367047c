// drb::LiveLocals on small templates: a local is live where it may be read before it is written.
#include "drb/liveness.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "drb/parser.h"

namespace druba::drb {
namespace {

// Whether local `name` is live at the statement labelled `label`.
bool LiveAt(const Program& p, const std::vector<std::vector<bool>>& live, const std::string& label,
            const std::string& name) {
  std::uint32_t pc = 0;
  while (pc < p.statements.size() && p.statements[pc].label != label) ++pc;
  std::uint32_t var = 0;
  while (var < p.locals.size() && p.locals[var].name != name) ++var;
  EXPECT_LT(pc, p.statements.size()) << label;
  EXPECT_LT(var, p.locals.size()) << name;
  return live[pc][var];
}

TEST(LivenessTest, ALocalIsLiveWhereItMayBeReadBeforeItIsWritten) {
  const Program p = ParseProgram(
      "shared bool f[threads] = false;\nlocal int j = 0;\nlocal int k = 0;\n"
      "thread T * 2 {\n"
      "  idle: k := 1;\n"                        // j dead: written at `set` before a read
      "  set: j := 0;\n"                         // writes j without reading it
      "  scan: while j < count(i: true) do {\n"  // reads j
      "    look: if f[j] then goto idle else j := j + 1;\n"
      "  }\n"
      "  done: f[self] := k == 1;\n"  // reads k, not j
      "  back: goto idle;\n"
      "}\n",
      "live.drb");
  const std::vector<std::vector<bool>> live = LiveLocals(p);
  EXPECT_FALSE(LiveAt(p, live, "idle", "j"));
  EXPECT_FALSE(LiveAt(p, live, "set", "j"));
  EXPECT_TRUE(LiveAt(p, live, "scan", "j"));
  EXPECT_TRUE(LiveAt(p, live, "look", "j"));  // the index of another thread's entry
  EXPECT_FALSE(LiveAt(p, live, "done", "j"));
  EXPECT_FALSE(LiveAt(p, live, "idle", "k"));  // written first
  EXPECT_TRUE(LiveAt(p, live, "set", "k"));    // read at `done` without a write before
  EXPECT_TRUE(LiveAt(p, live, "look", "k"));
  EXPECT_FALSE(LiveAt(p, live, "back", "k"));  // `idle` writes it first
}

// A write under a branch kills nothing: the other branch keeps the old value.
TEST(LivenessTest, AWriteOnOnePathOnlyKillsNothing) {
  const Program p = ParseProgram(
      "shared bool g = false;\nlocal int j = 0;\n"
      "thread T * 2 {\n"
      "  a: if g then j := 1;\n"
      "  b: g := j == 1;\n"
      "}\n",
      "branch.drb");
  const std::vector<std::vector<bool>> live = LiveLocals(p);
  EXPECT_TRUE(LiveAt(p, live, "a", "j"));
  EXPECT_TRUE(LiveAt(p, live, "b", "j"));
}

}  // namespace
}  // namespace druba::drb
