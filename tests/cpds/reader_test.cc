// Every malformed input is an InputError naming file, line and column.
#include <gtest/gtest.h>

#include "common/files.h"
#include "cpds/reader.h"

namespace druba::cpds {
namespace {

std::string PdsError(const std::string& text) {
  Warnings warnings;
  try {
    ParsePds(text, "m.pds", &warnings);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

Cpds TwoThreads() {
  Warnings warnings;
  return ParsePds("3\nPDA 0 5\n0 1 -> 1 2\nPDA 0 5\n1 2 -> 0 -\n", "m.pds", &warnings);
}

std::string InitError(const std::string& text) {
  try {
    ParseInit(text, "m.init", TwoThreads());
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

TEST(ReaderTest, ReadsAllThreeRuleKindsAndComments) {
  Warnings warnings;
  const Cpds c = ParsePds(
      "# comment first\n2 # shared\nPDA 1 4\n0 1 -> 1 2 # over\n1 2 -> 0 3 4\n"
      "0 3 -> 1 -\n0 4->1 1\n",
      "m.pds", &warnings);
  ASSERT_EQ(c.shared_states, 2u);
  ASSERT_EQ(c.threads.size(), 1u);
  ASSERT_EQ(c.threads[0].rules.size(), 4u);
  EXPECT_EQ(c.threads[0].rules[0].kind, RuleKind::kOverwrite);
  EXPECT_EQ(c.threads[0].rules[1].kind, RuleKind::kPush);
  EXPECT_EQ(c.threads[0].rules[1].new_top, 3u);
  EXPECT_EQ(c.threads[0].rules[1].below, 4u);
  EXPECT_EQ(c.threads[0].rules[2].kind, RuleKind::kPop);
  EXPECT_EQ(c.threads[0].rules[3].line, 7u);
  EXPECT_TRUE(warnings.empty());
}

TEST(ReaderTest, SymbolOutsideTheDeclaredRangeIsAWarning) {
  Warnings warnings;
  ParsePds("1\nPDA 6 9\n0 9 -> 0 10\n", "m.pds", &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0].rfind("m.pds:3:10: warning: symbol 10 lies outside", 0), 0u) << warnings[0];
  // Without a place for warnings they are dropped (it once dereferenced the null pointer).
  EXPECT_EQ(ParsePds("1\nPDA 6 9\n0 9 -> 0 10\n", "m.pds", nullptr).threads.size(), 1u);
}

TEST(ReaderTest, MalformedModelsNameFileLineAndColumn) {
  EXPECT_EQ(PdsError(""), "m.pds:1:1: error: empty model: expected the number of shared states");
  EXPECT_EQ(PdsError("# only a comment\n\n"),
            "m.pds:1:1: error: empty model: expected the number of shared states");
  EXPECT_EQ(PdsError("3 states\nPDA 0 1\n"),
            "m.pds:1:3: error: expected the end of the line after the number of shared states, "
            "found 'states'");
  EXPECT_EQ(PdsError("x\n"), "m.pds:1:1: error: expected the number of shared states, found 'x'");
  EXPECT_EQ(PdsError("0\nPDA 0 1\n"),
            "m.pds:1:1: error: the number of shared states must be at least 1");
  EXPECT_EQ(PdsError("2\n0 1 -> 1 2\n"),
            "m.pds:2:1: error: rule before any 'PDA lo hi' line: every rule belongs to a thread's "
            "block");
  EXPECT_EQ(PdsError("2\nPDA 0 3\n0 1 1 2\n"),
            "m.pds:3:1: error: missing '->': a rule is 'g l -> g' l'', 'g l -> g' l1 l2' or "
            "'g l -> g' -'");
  EXPECT_EQ(PdsError("2\nPDA 0 3\n0 1 -> 1\n"),
            "m.pds:3:9: error: a rule's right side is 'g' l'' (overwrite), 'g' l1 l2' (push) or "
            "'g' -' (pop): found 1 item");
  EXPECT_EQ(PdsError("2\nPDA 0 3\n0 1 -> 1 2 3 0\n"),
            "m.pds:3:14: error: a rule's right side is 'g' l'' (overwrite), 'g' l1 l2' (push) or "
            "'g' -' (pop): found 4 items");
  EXPECT_EQ(PdsError("2\nPDA 0 3\n0 -> 1 2\n"),
            "m.pds:3:3: error: a rule's left side is 'g l' (shared state and top symbol): found 1 "
            "item");
  EXPECT_EQ(PdsError("2\nPDA 0 3\n0 1 -> 2 2\n"),
            "m.pds:3:8: error: shared state 2 out of range: the model declares 2 shared states "
            "(0..1)");
  EXPECT_EQ(PdsError("2\nPDA 0 3\n5 1 -> 0 2\n"),
            "m.pds:3:1: error: shared state 5 out of range: the model declares 2 shared states "
            "(0..1)");
  EXPECT_EQ(PdsError("2\nPDA 0 3\n0 1 -> 1 - 2\n"),
            "m.pds:3:10: error: expected a stack symbol, found '-'");
  EXPECT_EQ(PdsError("99999999999999999999\n"),
            "m.pds:1:1: error: number too large: 99999999999999999999 (at most 16777215)");
  EXPECT_EQ(PdsError("2\nPDA 0 3\n0 16777216 -> 1 2\n"),
            "m.pds:3:3: error: number too large: 16777216 (at most 16777215)");
  EXPECT_EQ(PdsError("2\nPDA 3 1\n"),
            "m.pds:2:5: error: empty symbol range: lowest symbol 3 > highest 1");
  EXPECT_EQ(PdsError("2\nPDA 0\n"),
            "m.pds:2:6: error: a block header is 'PDA lo hi' (the thread's lowest and highest "
            "stack symbol)");
  EXPECT_EQ(PdsError("2\n"),
            "m.pds:1: error: no 'PDA lo hi' block: a model needs at least one "
            "thread");
  EXPECT_EQ(PdsError(std::string("2\nPDA 0 1\n0 1 -> \x01\x02 1\n")),
            "m.pds:3:8: error: unexpected byte 0x01 (is this a text file?)");
  EXPECT_EQ(PdsError(std::string("\x7f"
                                 "ELF\x02\x01\x01",
                                 7)),
            "m.pds:1:1: error: unexpected byte 0x7f (is this a text file?)");
  EXPECT_EQ(PdsError(std::string("2\nPDA 0 1 # caf\xc3\xa9\n0 1 -> 1 \xc3\xa9\n")),
            "m.pds:3:10: error: unexpected byte 0xc3 (is this a text file?)");
}

TEST(ReaderTest, InitialStates) {
  const InitialState init = ParseInit("# comment\n2|1.5,-\n", "m.init", TwoThreads());
  EXPECT_EQ(init.shared, 2u);
  EXPECT_EQ(init.stacks, (std::vector<Stack>{{1, 5}, {}}));
  EXPECT_EQ(ParseInit("0|3,", "m.init", TwoThreads()).stacks, (std::vector<Stack>{{3}, {}}));
  EXPECT_EQ(InitError(""), "m.init:1:1: error: empty: expected a state 'g|stack0,stack1,...'");
  EXPECT_EQ(InitError("0|1,2,3\n"),
            "m.init:1:8: error: the state lists 3 stacks but m.pds has 2 threads ('PDA' blocks)");
  EXPECT_EQ(InitError("0|1\n"),
            "m.init:1:4: error: the state lists 1 stacks but m.pds has 2 threads ('PDA' blocks)");
  EXPECT_EQ(InitError("3|1,2\n"),
            "m.init:1:1: error: shared state 3 out of range: the model declares 3 shared states");
  EXPECT_EQ(InitError("0 1,2\n"), "m.init:1:3: error: expected '|' after the shared state");
  EXPECT_EQ(InitError("0|1;2\n"), "m.init:1:4: error: expected ',' between stacks");
  EXPECT_EQ(InitError("0|1.x,2\n"), "m.init:1:5: error: expected a stack symbol, found 'x'");
  EXPECT_EQ(InitError("0|1,2\n1|1,2\n"),
            "m.init:2:1: error: expected one state 'g|stack0,stack1,...'; found a second line");
}

TEST(ReaderTest, Targets) {
  const TargetPattern t = ParseTarget("*|-,3.4", "--target", TwoThreads());
  EXPECT_FALSE(t.shared.has_value());
  ASSERT_EQ(t.stacks.size(), 2u);
  EXPECT_EQ(*t.stacks[0], Stack{});
  EXPECT_EQ(*t.stacks[1], (Stack{3, 4}));
  EXPECT_FALSE(ParseTarget("1|*,2", "--target", TwoThreads()).stacks[0].has_value());
}

TEST(ReaderTest, MissingFile) {
  try {
    ReadFile("/nonexistent/m.pds");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/m.pds: error: cannot open the file");
  }
}

}  // namespace
}  // namespace druba::cpds
