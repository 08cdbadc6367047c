// The .drb reader: accepted programs resolve as expected; every malformed input is an InputError
// naming file, line and column.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "common/files.h"
#include "drb/parser.h"
#include "interp/model.h"

namespace druba::predabs {
namespace {

std::string ErrorOf(const std::string& text) {
  try {
    ParseProgram(text, "m.drb");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(DrbParserTest, ResolvesLabelsVariablesAndLocations) {
  const Program p = ParseProgram(
      "shared nat m = 0; local bool b = true;\n"
      "thread T * 3 {\n"
      "  0: m := m + 1;\n"
      "  wait: while m != 3 do;\n"
      "  if b then goto 0 else end;\n"
      "}\n"
      "abstraction a { track pc; predicate two: count(i: pc[i] == wait) >= 2; }\n",
      "m.drb");
  ASSERT_EQ(p.statements.size(), 3U);
  EXPECT_EQ(p.NumThreads(), 3U);
  EXPECT_EQ(p.statements[0].next, 1U);
  EXPECT_EQ(p.statements[2].label, "@5");
  EXPECT_EQ(p.statements[2].next, p.templates[0].end_pc);
  EXPECT_EQ(p.templates[0].end_pc, 3U);
  EXPECT_EQ(p.error_pc, 4U);
  EXPECT_EQ(p.statements[1].text, "while m != 3 do");
  EXPECT_TRUE(p.symmetric);
  EXPECT_TRUE(p.abstractions[0].symmetric);
  EXPECT_EQ(p.abstractions[0].predicates[0].name, "two");
  EXPECT_EQ(p.locals[0].init, 1);
}

// `pc == @4` names the unlabelled statement on line 4, as reports name it (`@19` in a closure
// break could not be written back in a predicate).
TEST(DrbParserTest, AnUnlabelledStatementIsNamedByItsLine) {
  const Program p = ParseProgram(
      "shared int x = 0;\n"
      "thread T * 2 {\n"
      "  a: x := 1;\n"
      "  x := 2;\n"
      "}\n"
      "abstraction at { track pc; predicate second: forall i: pc[i] != @4; }\n",
      "m.drb");
  ASSERT_EQ(p.statements.size(), 2U);
  EXPECT_EQ(p.statements[1].label, "@4");
  EXPECT_EQ(ExprToString(p, *p.abstractions[0].predicates[0].expr), "forall i0: (pc[i0] != @4)");
}

// `lock(a[e])` is `atomic { assume !a[e]; a[e] := true }` on the element e picks at run time (one
// step: if it is free, take it, else wait); `unlock(a[e])` is `a[e] := false`.
TEST(DrbParserTest, LockAnElementOfASharedBooleanArray) {
  const Program p = ParseProgram(
      "shared bool lk[3]; local nat k = 2;\n"
      "thread T * 2 { take: lock(lk[k]); give: unlock(lk[k - 1]); last: lock(lk[0]); }\n",
      "m.drb");
  ASSERT_EQ(p.statements.size(), 3U);
  const Instr& take = p.statements[0].body.at(0);
  ASSERT_EQ(take.kind, Instr::Kind::kIf);
  const Expr& free = *take.exprs.at(0);
  EXPECT_EQ(free.op, Expr::Op::kNot);
  EXPECT_EQ(free.args.at(0)->kind, Expr::Kind::kSharedElement);
  EXPECT_EQ(ExprToString(p, free), "!lk[k]");
  const Instr& set = take.blocks.at(0).at(0);
  ASSERT_EQ(set.targets.size(), 1U);
  EXPECT_NE(set.targets[0].index, nullptr);
  EXPECT_EQ(set.targets[0].size, 3U);
  EXPECT_EQ(take.blocks.at(1).at(0).kind, Instr::Kind::kAssume);
  const Instr& give = p.statements[1].body.at(0);
  EXPECT_EQ(give.kind, Instr::Kind::kAssign);
  EXPECT_EQ(ExprToString(p, *give.targets.at(0).index), "(k - 1)");
  const Instr& last = p.statements[2].body.at(0);
  EXPECT_EQ(last.blocks.at(0).at(0).targets.at(0).index, nullptr);  // lk[0]: the element itself
  EXPECT_EQ(last.blocks.at(0).at(0).targets.at(0).var, take.blocks[0][0].targets[0].var);
}

TEST(DrbParserTest, SelfOrAFixedIndexMakesCodeOrAbstractionAsymmetric) {
  const Program code = ParseProgram("local int l; thread T * 2 { l := self; }", "m.drb");
  EXPECT_FALSE(code.symmetric);
  const Program spec = ParseProgram(
      "local int l; thread T * 2 { l := 1; }\n"
      "abstraction a { predicate l[1] == 0; }\n"
      "abstraction b { predicate forall i: l[i] == 0; }\n",
      "m.drb");
  EXPECT_TRUE(spec.symmetric);
  EXPECT_FALSE(spec.abstractions[0].symmetric);
  EXPECT_TRUE(spec.abstractions[1].symmetric);
}

// Ordered symmetry (drb/ordered.h): each use of a thread id that keeps it, and each that breaks
// it, named by line and column.
TEST(DrbParserTest, OrderedSymmetryAllowsComparingIdsOnly) {
  const std::string head =
      "shared int owner = -1; shared int v[2] = -1; local int j = -1;\n"
      "shared bool flag[threads] = false; local int k = 0;\n";
  const std::vector<std::string> kept = {
      "thread T * 3 { a: await forall i != self: i < self => !flag[i]; }",
      "thread T * 3 { a: owner := self; b: assert owner == self; }",
      "thread T * 3 { a: v[k] := self; b: await v[k] != self || owner < 0; }",
      "thread T * 3 { a: owner := self; b: j := owner; c: if j != -1 then flag[j] := true; }",
      "thread T * 3 { a: owner := -1; b: k := count(i: i < self); }",
  };
  for (const std::string& code : kept) {
    const Program p = ParseProgram(head + code, "m.drb");
    EXPECT_TRUE(p.ordered_symmetric) << code << ": " << p.unordered_what;
    EXPECT_FALSE(p.symmetric) << code;
  }
  const std::vector<std::pair<std::string, std::string>> broken = {
      {"thread T * 3 { a: k := self + 1; }", "3:29 arithmetic on a thread id"},
      {"thread T * 3 { a: assume self == 0; }", "3:31 a thread id compared with a number"},
      {"thread T * 3 { a: assume pc[1] == a; }", "3:29 a fixed thread index"},
      {"thread T * 3 { a: flag[k] := true; }", "3:24 a number as a thread index"},
      {"thread T * 3 { a: k := v[self]; }", "3:26 a thread id as a fixed-size array's index"},
      {"thread T * 3 { a: owner := self; b: owner := 2; }",
       "3:46 `owner` holds thread ids and here a number"},
      {"thread T * 3 { a: k := self; }", "2:46 `k` holds thread ids, and its initial value 0"},
      {"thread T * 2 { a: skip; } thread U * 1 { b: skip; }", "3:27 a second thread template"},
  };
  for (const auto& [code, want] : broken) {
    const Program p = ParseProgram(head + code, "m.drb");
    EXPECT_FALSE(p.ordered_symmetric) << code;
    const std::string got = std::to_string(p.unordered_at.line) + ":" +
                            std::to_string(p.unordered_at.column) + " " + p.unordered_what;
    EXPECT_TRUE(got.starts_with(want)) << code << "\n  got:  " << got << "\n  want: " << want;
  }
}

// Which bundled models are ordered-symmetric: the ones the every-count argument for ordered ids
// is for, and why each other one is not.
TEST(DrbParserTest, BundledModelsThatAreOrderedSymmetric) {
  std::set<std::string> ordered;
  std::set<std::string> symmetric;
  for (const auto& entry : std::filesystem::directory_iterator(DRUBA_SOURCE_DIR "/models")) {
    if (entry.path().extension() != ".drb") continue;
    const std::string name = entry.path().stem().string();
    const Program p = ParseProgram(ReadFile(entry.path().string()), name + ".drb");
    if (p.symmetric) symmetric.insert(name);
    if (p.ordered_symmetric) ordered.insert(name);
    if (p.symmetric) {
      EXPECT_TRUE(p.ordered_symmetric) << name << ": " << p.unordered_what;
    }
    if (!p.symmetric) {
      std::fprintf(stderr, "%-32s %s\n", name.c_str(),
                   p.ordered_symmetric
                       ? "ordered-symmetric"
                       : (std::to_string(p.unordered_at.line) + ":" +
                          std::to_string(p.unordered_at.column) + " " + p.unordered_what)
                             .c_str());
    }
  }
  std::set<std::string> ordered_only;
  std::set_difference(ordered.begin(), ordered.end(), symmetric.begin(), symmetric.end(),
                      std::inserter(ordered_only, ordered_only.end()));
  EXPECT_EQ(ordered_only,
            (std::set<std::string>{"burns-quantified", "burns-quantified-broken", "filter-lock",
                                   "filter-lock-broken", "szymanski", "szymanski-broken",
                                   "ticket-bakery", "ticket-bakery-broken"}));
}

TEST(DrbParserTest, ErrorsNameFileLineAndColumn) {
  const struct {
    const char* text;
    const char* error;
  } cases[] = {
      {"shared int x = 0", "m.drb:1:17: error: expected ';' but the file ended"},
      {"shared int x;\nshared int x;", "m.drb:2:12: error: 'x' is declared twice"},
      {"shared float x;",
       "m.drb:1:8: error: expected a type: 'int', 'nat' or 'bool' but found "
       "'float'"},
      {"shared nat x = -1;", "m.drb:1:16: error: a nat cannot start negative"},
      {"shared int[0, 3] x = 4;",
       "m.drb:1:22: error: the initial value is outside the variable's range"},
      {"shared int[1, 3] x;",
       "m.drb:1:18: error: 'x' starts at 0, outside its range: give its initial value"},
      {"shared int[3, 1] x = 2;",
       "m.drb:1:12: error: the range is empty: its upper bound is below its lower one"},
      {"shared int[0 3] x;", "m.drb:1:14: error: expected ',' but found '3'"},
      {"shared bool b = 3;", "m.drb:1:17: error: expected 'true' or 'false' but found '3'"},
      {"shared int x; thread T { x := y; }", "m.drb:1:31: error: unknown name 'y'"},
      {"shared int x; thread T { x := true; }",
       "m.drb:1:31: error: expected an integer expression"},
      {"shared int x; thread T { goto nowhere; }",
       "m.drb:1:31: error: no statement of this thread has the label 'nowhere'"},
      {"shared int x; thread T { a: x := 1; a: x := 2; }",
       "m.drb:1:37: error: the label 'a' is used twice"},
      {"shared int x; thread T { x := 1, x := 2; }",
       "m.drb:1:34: error: 'x' is assigned twice in one statement"},
      {"shared int x; thread T { if x then goto 0; }",
       "m.drb:1:29: error: expected a Boolean expression"},
      {"shared int x; thread T { x := 1 }", "m.drb:1:33: error: expected ';' but found '}'"},
      {"shared int x; thread T { x := 1; ", "m.drb:1:34: error: the thread's '{' is not closed"},
      {"local int l; thread T { l[0] := 1; }",
       "m.drb:1:26: error: 'l' is not an array: a thread assigns it as `l := ...`"},
      {"local int a[threads];",
       "m.drb:1:13: error: an array with one entry per thread is shared: `shared T a[threads]` "
       "(a local array has a size: `local T a[3]`)"},
      {"shared int a[0];", "m.drb:1:14: error: an array has 1 to 4096 elements"},
      {"shared int a[n];",
       "m.drb:1:14: error: expected an array size (a number, or `threads`) but found 'n'"},
      {"shared int a[3]; thread T { a[3] := 1; }",
       "m.drb:1:29: error: index 3 is outside 'a' (0 to 2)"},
      {"shared int a[3]; thread T { assume a == 1; }",
       "m.drb:1:38: error: 'a' is an array of 3 elements: name one, `a[i]` but found '=='"},
      {"shared int a[3], i; thread T { a[i] := 1, a[0] := 2; }",
       "m.drb:1:43: error: 'a' is assigned twice in one statement"},
      {"shared int a[3] = {1, 2};",
       "m.drb:1:19: error: 'a' has 3 elements, and 2 initial values are given"},
      {"shared int x; thread T { assume pc < 2; }",
       "m.drb:1:36: error: a program counter can only be compared with '==' or '!='"},
      {"shared int x; thread T { assume pc == nolabel; }",
       "m.drb:1:39: error: no statement has the label 'nolabel'"},
      {"shared int x; thread T { x := x[0]; }",
       "m.drb:1:31: error: 'x' is shared; only locals have a copy per thread"},
      {"shared int x; thread T { x := 1 $ 2; }", "m.drb:1:33: error: unexpected character '$'"},
      {"shared int x; thread T { choose { x := 1 }; }",
       "m.drb:1:43: error: 'choose' needs at least two blocks joined by 'or'"},
      {"shared int x; thread T * 1001 { x := 1; }",
       "m.drb:1:26: error: a thread count must be between 1 and 1000"},
      // Zero threads crashed the explorer (found by scripts/census).
      {"shared int x; thread T * 0 { x := 1; }",
       "m.drb:1:26: error: a thread count must be between 1 and 1000"},
      {"shared int x; thread T * 00 { x := 1; }",
       "m.drb:1:26: error: a thread count must be between 1 and 1000"},
      {"shared int x;",
       "m.drb:1:14: error: the model declares no thread (expected 'thread NAME { ... }')"},
      {"thread T { } ", "m.drb:1:1: error: thread 'T' has no statement"},
      {"shared int x; thread T { x := 1; } abstraction a { track x; }",
       "m.drb:1:58: error: expected 'pc' but found 'x'"},
      {"shared int x; thread T { x := 1; } abstraction a { predicate x + 1; }",
       "m.drb:1:62: error: expected a Boolean expression"},
      {"shared int x; thread T { x := 12abc; }", "m.drb:1:33: error: a number runs into a name"},
      {"shared int x; thread T { w: while x < 2 do { } }",
       "m.drb:1:44: error: a loop body needs a statement (a busy wait is `while c do;`)"},
      {"shared int x; thread T { w: while x < 2 do { x := x + 1; ",
       "m.drb:1:44: error: the '{' is not closed"},
      {"shared int x; thread T { lock(x); }",
       "m.drb:1:31: error: lock(x) needs a shared Boolean variable x (declared `shared bool x = "
       "false;`) or an element of a shared Boolean array (`shared bool x[N];`, `lock(x[i])`)"},
      {"shared int x; thread T { @3: x := 1; }",
       "m.drb:1:26: error: '@3' names the unlabelled statement on line 3: a label is a name or a "
       "number"},
      {"shared int x; thread T { x := @1; }", "m.drb:1:31: error: unknown name '@1'"},
      {"shared int x; thread T { a: x := 1; } abstraction b { track pc; predicate pc == @7; }",
       "m.drb:1:81: error: no statement has the label '@7'"},
      {"shared int a[2]; thread T { unlock(a[1]); }",
       "m.drb:1:36: error: unlock(x) needs a shared Boolean variable x (declared `shared bool x = "
       "false;`) or an element of a shared Boolean array (`shared bool x[N];`, `unlock(x[i])`)"},
      {"shared bool a[2]; thread T { lock(a[2]); }",
       "m.drb:1:35: error: index 2 is outside 'a' (0 to 1)"},
      {"local bool a[2]; thread T { lock(a[0]); }",
       "m.drb:1:34: error: lock(x) needs a shared Boolean variable x (declared `shared bool x = "
       "false;`) or an element of a shared Boolean array (`shared bool x[N];`, `lock(x[i])`)"},
  };
  for (const auto& c : cases) EXPECT_EQ(ErrorOf(c.text), c.error) << c.text;
}

// `while c do { ... }`: the test goes into the body or past it; the body's last statement goes
// back to the test; an inner loop that ends its outer body leaves to the outer test.
TEST(DrbParserTest, LoopsWithBodies) {
  const Program p = ParseProgram(
      "shared int x = 0; local int i; local int j;\n"
      "thread T {\n"
      "  o: while i < 2 do {\n"
      "    b: i := i + 1, j := 0;\n"
      "    n: while j < 2 do { s: x := x + 1, j := j + 1; }\n"
      "  }\n"
      "  d: assert x == 4;\n"
      "}\n",
      "m.drb");
  ASSERT_EQ(p.statements.size(), 5U);  // o b n s d
  const auto out = [&](std::uint32_t stmt) {
    return p.statements[stmt].body[0].blocks[1][0].label;
  };
  EXPECT_EQ(p.statements[0].next, 1U);  // o: into the body
  EXPECT_EQ(out(0), 4U);                // o: past it, to d
  EXPECT_EQ(p.statements[2].next, 3U);  // n: into its body
  EXPECT_EQ(out(2), 0U);                // n ends o's body: back to o
  EXPECT_EQ(p.statements[3].next, 2U);  // s: back to n
  EXPECT_EQ(p.statements[1].next, 2U);  // b: on to n
}

// `shared T a[threads]`: a[self] is the thread's own entry (and keeps the program symmetric),
// a[i] another thread's.
TEST(DrbParserTest, PerThreadArrays) {
  const Program p = ParseProgram(
      "shared bool flag[threads] = false;\n"
      "thread T * 3 { a: flag[self] := true; b: await forall j != self: !flag[j]; }\n",
      "m.drb");
  ASSERT_EQ(p.locals.size(), 1U);
  EXPECT_TRUE(p.shared.empty());
  EXPECT_TRUE(p.symmetric);
  EXPECT_EQ(p.statements[0].body[0].targets[0].local, true);
}

// `T a[N]`: N variables a[0]..a[N-1]; a literal index is the element itself, another index an
// element chosen at run time (read and written); an index out of range fails the thread. A write
// to another thread's entry of a per-thread array makes the program asymmetric.
TEST(DrbParserTest, FixedSizeArrays) {
  const Program p = ParseProgram(
      "shared int slot[3] = {1, 1, 1};\n"
      "local bool mine[2] = false;\n"
      "shared nat k = 0;\n"
      "thread T * 2 { a: slot[k] := slot[k + 1] + 1, mine[1] := true; b: k := k + 2; }\n",
      "m.drb");
  ASSERT_EQ(p.shared.size(), 4U);
  EXPECT_EQ(p.shared[2].name, "slot[2]");
  EXPECT_EQ(p.shared[2].init, 1);
  ASSERT_EQ(p.locals.size(), 2U);
  EXPECT_EQ(p.locals[1].name, "mine[1]");
  EXPECT_TRUE(p.symmetric);
  const Instr& a = p.statements[0].body[0];
  ASSERT_EQ(a.targets.size(), 2U);
  EXPECT_EQ(a.targets[0].size, 3U);  // slot[k]: chosen at run time
  ASSERT_NE(a.targets[0].index, nullptr);
  EXPECT_EQ(a.targets[1].index, nullptr);  // mine[1]: the element itself
  EXPECT_EQ(a.targets[1].var, 1U);
  EXPECT_EQ(a.exprs[0]->args[0]->kind, Expr::Kind::kSharedElement);
  EXPECT_EQ(ExprToString(p, *a.exprs[0], ""), "(slot[(k + 1)] + 1)");

  // k = 0: slot[0] := slot[1] + 1; k = 2: slot[3] is read, out of range: the thread fails.
  IntModel model(p, 2);
  std::vector<Word> s;
  model.ForEachInitial([&](StateView v) { s.assign(v.begin(), v.end()); });
  std::vector<std::vector<Word>> next;
  model.ForEachSuccessor(
      StateView(s), 0, [&](std::uint32_t, StateView v) { next.emplace_back(v.begin(), v.end()); });
  ASSERT_EQ(next.size(), 1U);
  EXPECT_EQ(model.values().Decode(next[0][0]), 2);
  EXPECT_EQ(model.values().Decode(next[0][1]), 1);
  s[3] = model.values().Encode(2);  // k = 2
  next.clear();
  model.ForEachSuccessor(
      StateView(s), 0, [&](std::uint32_t, StateView v) { next.emplace_back(v.begin(), v.end()); });
  ASSERT_EQ(next.size(), 1U);
  EXPECT_EQ(next[0][model.PcSlot(0)], p.error_pc);

  const Program q = ParseProgram(
      "shared bool flag[threads] = false;\nthread T * 2 { a: flag[1 - self] := true; }\n", "m.drb");
  EXPECT_FALSE(q.symmetric);
  // A quantified thread as an index names a thread; as a number (here an array's index) it tells
  // threads apart: not symmetric (the every-count encoding once crashed on it).
  EXPECT_TRUE(
      ParseProgram("shared bool f[threads];\nthread T * 2 { assert forall i: !f[i]; }\n", "m.drb")
          .symmetric);
  EXPECT_FALSE(
      ParseProgram("shared int a[3];\nthread T * 2 { assert forall i: a[i] == 0; }\n", "m.drb")
          .symmetric);
  EXPECT_FALSE(
      ParseProgram("shared int x;\nthread T * 2 { assert forall i: x != i + 5; }\n", "m.drb")
          .symmetric);
  EXPECT_EQ(q.statements[0].body[0].targets[0].size, 0U);  // another thread's entry
}

// `if c then { ... } else { ... }` whose blocks hold statements (a label or a loop): the test is
// a step into one block or the other, and both blocks end past the if.
TEST(DrbParserTest, IfBlocksWithStatements) {
  const Program p = ParseProgram(
      "shared int x = 0;\n"
      "thread T {\n"
      "  t: if x == 0 then {\n"
      "    a: x := 1;\n"
      "    w: while x < 3 do { b: x := x + 1; }\n"
      "  } else {\n"
      "    c: x := 5;\n"
      "  }\n"
      "  d: assert x == 3 || x == 5;\n"
      "  e: if x == 9 then { f: x := 0; }\n"
      "}\n",
      "m.drb");
  ASSERT_EQ(p.statements.size(), 8U);  // t a w b c d e f
  const auto out = [&](std::uint32_t stmt) {
    return p.statements[stmt].body[0].blocks[1][0].label;
  };
  EXPECT_EQ(p.statements[0].next, 1U);  // t: into the then-block
  EXPECT_EQ(out(0), 4U);                // t: otherwise to the else-block
  EXPECT_EQ(out(2), 5U);                // w ends the then-block: past the if, to d
  EXPECT_EQ(p.statements[3].next, 2U);  // b: back to w
  EXPECT_EQ(p.statements[4].next, 5U);  // c ends the else-block: to d
  const std::uint32_t end = p.templates[0].end_pc;
  EXPECT_EQ(out(6), end);                // e without else, last in the thread: to end
  EXPECT_EQ(p.statements[7].next, end);  // f ends e's block, and the thread
}

// A label several templates have means "at that label in its own template".
TEST(DrbParserTest, LabelsSharedByTemplates) {
  const Program p = ParseProgram(
      "shared int x; thread A { a: x := 1; } thread B { a: x := 2; }\n"
      "abstraction s { predicate pc[1] == a; predicate pc[0] != end; }",
      "m.drb");
  const Expr& at = *p.abstractions[0].predicates[0].expr;
  ASSERT_EQ(at.kind, Expr::Kind::kBinary);
  EXPECT_EQ(at.op, Expr::Op::kOr);  // pc[1] == a (of A) || pc[1] == a (of B)
  EXPECT_EQ(ExprToString(p, at), "((pc[1] == a) || (pc[1] == a))");
  EXPECT_EQ(p.abstractions[0].predicates[1].expr->op, Expr::Op::kAnd);
}

}  // namespace
}  // namespace druba::predabs
