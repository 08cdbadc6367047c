// The C kind's lowering (src/c): each C construct as the .drb text it becomes, and each refusal
// at its place. Operators are what clang's C library does not name: they are read off the file's
// tokens, or off clang's print of the function where a macro wrote them; these tests pin both
// ways, and the macro uses whose text would read as another operator.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "c/translate.h"
#include "common/diagnostics.h"

namespace druba::c {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A C program in a directory of its own, removed after.
class Program {
 public:
  explicit Program(const std::string& text) {
    std::string name = (std::filesystem::temp_directory_path() / "druba-c-XXXXXX").string();
    dir_ = mkdtemp(name.data());
    file_ = (dir_ / "p.c").string();
    std::ofstream(file_) << "void reach_error(void);\n" << text;
  }
  ~Program() { std::filesystem::remove_all(dir_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  std::string Translation() const { return TranslateC(file_); }
  // The refusal's "file:line:col: message".
  std::string Refusal() const {
    try {
      TranslateC(file_);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(translated)";
  }

 private:
  std::filesystem::path dir_;
  std::string file_;
};

TEST(LoweringTest, AnAssignmentAMacroWroteIsAnAssignment) {
  // Between x and 1 the file has the `,` of SET's use: read as a comma, the write would vanish.
  const Program p("#define SET(a, b) a = b\nint x;\nint main(void) { SET(x, 1); return 0; }\n");
  EXPECT_THAT(p.Translation(), HasSubstr(": x := 1;"));
}

TEST(LoweringTest, AnOperatorInAMacrosBodyIsReadOffClangsPrint) {
  const Program p(
      "#define min(x, y) ((y >= x) ? (x) : (y))\n#define NUM 10\n#define NEG(a) -a\nint x;\n"
      "int main(void) { int a = 3; x = min(a, NUM); x = NEG(a); return 0; }\n");
  const std::string out = p.Translation();
  EXPECT_THAT(out, HasSubstr("x := (if (10 >= main_a) then main_a else 10);"));
  EXPECT_THAT(out, HasSubstr("x := (-main_a);"));
}

TEST(LoweringTest, AnOperatorInAMacrosArgumentIsReadWhereItStands) {
  // The assert macro of SV-COMP's tasks: `!` is the macro's, `>=`, `&&` and `<` the argument's.
  // The extent clang gives `a >= 1 && b < 2` is empty, at the macro's name: read off that, the
  // `&&` was taken for the first operator of the line.
  const Program p(
      "#define CHECK(e) { if (!(e)) { ERROR: reach_error(); } }\n"
      "int main(void) { int a = 5, b = 0; CHECK(a >= 1 && b < 2); return 0; }\n");
  EXPECT_THAT(p.Translation(),
              HasSubstr("if !(!(if (main_a >= 1) then (main_b < 2) else false)) then goto"));
}

TEST(LoweringTest, TheCommaBetweenAMacrosArgumentsIsNoOperator) {
  const Program p(
      "#define SUB(a, b) a - b\nint main(void) { int a = 5, b; b = SUB(a, 2); "
      "return 0; }\n");
  EXPECT_THAT(p.Translation(), HasSubstr("main_b := (main_a - 2);"));
}

TEST(LoweringTest, ACommaStatementIsItsTwoStatementsInOrder) {
  const Program p("int x, y;\nint main(void) {\n  x = 1, y = 2;\n  return 0;\n}\n");
  const std::string out = p.Translation();
  EXPECT_THAT(out, HasSubstr("c4: x := 1;\n  c4_2: y := 2;"));
}

TEST(LoweringTest, AThreadFunctionMainCallsWithANullPointerIsInlined) {
  const Program p(
      "int x;\nvoid *t(void *arg) { x = 1; return 0; }\n"
      "int main(void) { t(0); return 0; }\n");
  EXPECT_THAT(p.Translation(), HasSubstr(": x := 1;"));
}

TEST(LoweringTest, ANullPointerParameterUsedIsRefusedAtItsPlace) {
  const Program p("int x;\nvoid set(int *p) { *p = 1; }\nint main(void) { set(0); return 0; }\n");
  EXPECT_THAT(p.Refusal(), HasSubstr("p.c:3:20: error: `*` of something but a pointer parameter"));
}

TEST(LoweringTest, AMacroThatWritesAStatementOfTheSubsetIsRead) {
  const Program p(
      "#define INC(v) v++\nint x;\nint main(void) { int a = 0; INC(a); x = a; "
      "return 0; }\n");
  const std::string out = p.Translation();
  EXPECT_THAT(out, HasSubstr("main_a := (main_a + 1);"));
  EXPECT_THAT(out, Not(HasSubstr("main_a - 1")));
}

TEST(LoweringTest, ASwitchGoesToItsCaseFallsThroughAndBreaks) {
  const Program p(
      "int main(void) {\n  int s = 2, r = 0;\n  switch (s) {\n    case 1: r = 10; break;\n"
      "    case 2: r = 20;\n    case 3: r = r + 1; break;\n    default: r = 99;\n  }\n"
      "  return 0;\n}\n");
  const std::string out = p.Translation();
  EXPECT_THAT(out, HasSubstr("c4: tmp := main_s;"));  // the value once, then each case's test
  EXPECT_THAT(out, HasSubstr("c5: if tmp == 1 then goto c5_2;"));
  EXPECT_THAT(out, HasSubstr("if tmp == 3 then goto c7_2;\n  c4_2: goto c8;"));  // default
  EXPECT_THAT(out, HasSubstr("c6_2: main_r := 20;\n  c7_2: main_r := (main_r + 1);"));
  EXPECT_THAT(out, HasSubstr("c7_3: goto c10;"));  // break: past the switch
}

TEST(LoweringTest, ACasesValueIsAConstantExpression) {
  const Program p(
      "int main(void) {\n  int s = 1;\n  switch (s) {\n    case 1 + 0: s = 2;\n"
      "  }\n  return 0;\n}\n");
  EXPECT_THAT(p.Translation(), HasSubstr("if tmp == 1 then goto"));
}

// Lines 2..: the program; the reach_error declaration Program adds is line 1.
const char* const kArrays =
    "int a[4] = {1, 2, 3, 4};\n"                 // 2
    "int top = 0;\n"                             // 3
    "_Bool seen[3];\n"                           // 4
    "int get(int *s, int i) { return s[i]; }\n"  // 5
    "int main(void) {\n"                         // 6
    "  int loc[3] = {7};\n"                      // 7
    "  a[top] = a[top] + 10;\n"                  // 8
    "  seen[1] = 1;\n"                           // 9
    "  if (get(a, 2) == 3) top = loc[1];\n"      // 10
    "  printf(\"%d\", top);\n"                   // 11
    "  return 0;\n"                              // 12
    "}\n";

TEST(LoweringTest, ArraysAreDrbArraysAndEachElementAStep) {
  const std::string out = Program(kArrays).Translation();
  EXPECT_THAT(out, HasSubstr("shared int a[4] = {1, 2, 3, 4};"));
  EXPECT_THAT(out, HasSubstr("shared bool seen[3] = false;"));
  EXPECT_THAT(out, HasSubstr("local int main_loc[3] = 0;"));
  // C gives the elements not written 0.
  EXPECT_THAT(out, HasSubstr("c7: main_loc[0] := 7;\n  c7_2: main_loc[1] := 0;"));
  // The index of the element written reads top: it is read first, in a step of its own, so
  // that no step touches two shared variables.
  EXPECT_THAT(out, HasSubstr("c8: tmp := top;\n  c8_2: tmp_2 := top;\n  c8_3: tmp_3 := "
                             "a[tmp_2];\n  c8_4: a[tmp] := (tmp_3 + 10);"));
}

TEST(LoweringTest, ACallInAnExpressionRunsFirstIntoATemporary) {
  const std::string out = Program(kArrays).Translation();
  // get(a, 2): a pointer parameter given an array names it; its value goes to a temporary.
  EXPECT_THAT(out, HasSubstr("c10: get_i := 2;\n  c5: tmp_4 := a[get_i];"));
  EXPECT_THAT(out, HasSubstr("if !(tmp_4 == 3) then goto c12;"));
  EXPECT_THAT(out, Not(HasSubstr("printf")));  // output: nothing the property sees
}

TEST(LoweringTest, ACallAfterAndOrOrRunsOnlyWhereCMakesIt) {
  // The left operand's value into a temporary; the call's steps only where C evaluates it.
  const Program p(
      "int x;\nint f(void) { x = 1; return 1; }\n"
      "int main(void) { if (x == 0 || f()) x = 2; return 0; }\n");
  EXPECT_THAT(p.Translation(), HasSubstr("c4: tmp := (x == 0);\n  c4_2: if tmp then goto c4_4;\n"
                                         "  c3: x := 1;\n  c3_2: tmp_2 := 1;\n"
                                         "  c3_3: goto c4_3;\n  c4_3: tmp := (tmp_2 != 0);\n"
                                         "  c4_4: if !tmp then goto c4_6;"));
  // In an atomic section, structured; the function's two returns end their branches.
  const Program atomic(
      "int top;\nint empty(void) { if (top == 0) return 1; else return 0; }\n"
      "void __VERIFIER_atomic_check(int r) { if (!(r && !empty())) reach_error(); }\n"
      "int main(void) { top = 1; __VERIFIER_atomic_check(1); return 0; }\n");
  EXPECT_THAT(atomic.Translation(),
              HasSubstr("tmp := (__VERIFIER_atomic_check_r_ != 0); if tmp then { if (top == 0) "
                        "then { tmp_2 := 1 } else { tmp_2 := 0 }; tmp := (!(tmp_2 != 0)) } else "
                        "{  }; if (!tmp) then { assert __exited } else {  } };"));
}

TEST(LoweringTest, ACallInABranchOfAChoiceRunsOnlyThere) {
  const Program p(
      "int x;\nint f(void) { x = 1; return 1; }\n"
      "int main(void) { int y = x ? f() : 0; return y; }\n");
  EXPECT_THAT(p.Translation(), HasSubstr("c4: if !(x != 0) then goto c4_4;\n  c3: x := 1;\n"
                                         "  c3_2: tmp_2 := 1;\n  c3_3: goto c4_2;\n"
                                         "  c4_2: tmp := tmp_2;\n  c4_3: goto c4_5;\n"
                                         "  c4_4: tmp := 0;\n  c4_5: main_y := tmp;"));
  const Program atomic(
      "int x;\nint f(void) { x = x + 1; return 5; }\n"
      "void __VERIFIER_atomic_g(void) { int y = x ? f() : 2; }\n"
      "int main(void) { __VERIFIER_atomic_g(); return 0; }\n");
  EXPECT_THAT(atomic.Translation(), HasSubstr("atomic { if (x != 0) then { x := (x + 1); tmp_2 := "
                                              "5; tmp := tmp_2 } else { tmp := 2 };"));
}

TEST(LoweringTest, AStatementAfterAReturnInAnAtomicSectionIsRefused) {
  // A return in one branch of an atomic function's `if`, and a statement after that `if`.
  const Program after(
      "int top;\nvoid __VERIFIER_atomic_f(void) { if (top == 0) return; top = 2; }\n"
      "int main(void) { __VERIFIER_atomic_f(); return 0; }\n");
  EXPECT_THAT(after.Refusal(),
              HasSubstr("p.c:3:56: error: a statement after a return inside an atomic section"));
}

TEST(LoweringTest, OutputWhoseArgumentsChangeSomethingIsRefused) {
  const Program p("int x;\nint main(void) { printf(\"%d\", x++); return 0; }\n");
  EXPECT_THAT(p.Refusal(), HasSubstr("p.c:3:31: error: an argument of 'printf' that changes"));
}

TEST(LoweringTest, AnArrayLargerThanDrbsIsRefusedWithItsSize) {
  const Program p("int big[5000];\nint main(void) { big[0] = 1; return 0; }\n");
  EXPECT_THAT(p.Refusal(),
              HasSubstr("p.c:2:5: error: an array of 5000 elements (druba's have 1 to 4096)"));
}

TEST(LoweringTest, AStaticLocalIsRefusedAtItsPlace) {
  // One variable for every thread, given its value once: read as a local, each thread would
  // have its own, set again at each call.
  const Program p("int main(void) {\n  static int calls = 0;\n  calls++;\n  return 0;\n}\n");
  EXPECT_THAT(p.Refusal(), HasSubstr("p.c:3:14: error: a local variable declared static"));
}

TEST(LoweringTest, AnUnsignedConstantIsItsValueAndAnUnsignedQuotientDrbs) {
  // `0u - 1` is 4294967295 (it was the unbounded -1); an unsigned `%` needs no truncation formula.
  const Program p(
      "unsigned x = 7, y;\nint main(void) { if (x == 0u - 1) reach_error(); y = (x + 1) % 3; "
      "y = -1; return 0; }\n");
  const std::string out = p.Translation();
  EXPECT_THAT(out, HasSubstr("x == 4294967295"));
  EXPECT_THAT(
      out,
      HasSubstr(
          "y := ((if (tmp + 1) >= 4294967296 then (tmp + 1) - 4294967296 else (tmp + 1)) % 3);"));
  EXPECT_THAT(out, Not(HasSubstr("/ 3")));
  EXPECT_THAT(out, HasSubstr("y := 4294967295"));
}

TEST(LoweringTest, AFixedThreadBesideAFamilyIsARoleOfOneTemplate) {
  // main starts one writer, then creates readers without bound: one template for every count,
  // whose threads take the writer's role at most once, a reader's any number of times. main only
  // starts threads: it takes no role, and every thread is there from the start.
  const std::string functions =
      "#include <pthread.h>\nint d;\nvoid *w(void *a) { d = 1; return 0; }\n"
      "void *r(void *a) { if (d > 1) reach_error(); return 0; }\n";
  const Program p(functions +
                  "int main(void) { pthread_t t; pthread_create(&t, 0, w, 0);\n"
                  "  while (1) pthread_create(&t, 0, r, 0);\n  return 0; }\n");
  const std::string out = p.Translation();
  EXPECT_THAT(out, HasSubstr("thread r * 1.. {\n  c7: choose { assume !__role_w_; __role_w_ := "
                             "true; goto c4 } or { goto c5 };\n  c4: d := 1;"));
  EXPECT_THAT(out, Not(HasSubstr("started"))) << "no thread waits to be started";
  EXPECT_THAT(out, Not(HasSubstr("__exited := true"))) << "the return after the loop never runs";
  EXPECT_EQ(out.find("thread main"), std::string::npos);
  // main does more than start threads: it takes a role of its own, once, and starts the others.
  const Program q(functions +
                  "int main(void) { pthread_t t; d = 5; pthread_create(&t, 0, w, 0);\n"
                  "  while (1) pthread_create(&t, 0, r, 0);\n  return 0; }\n");
  const std::string more = q.Translation();
  EXPECT_THAT(more, HasSubstr("c7_4: choose { assume !__role_main_; __role_main_ := true; goto "
                              "c6 } or { assume !__role_w_; __role_w_ := true; goto c6_3 } or { "
                              "goto c7_3 };"));
  EXPECT_THAT(more, HasSubstr("c7_3: await started_r"));
  EXPECT_THAT(more, HasSubstr("assume false;")) << "main creates threads for ever";
  EXPECT_THAT(more, Not(HasSubstr("__exited := true")));
}

TEST(LoweringTest, ABranchOnANondeterministicValueIsAFreeChoice) {
  // Either branch may be taken whatever value is drawn: no value for the explicit search to
  // sample (its exhaustion then proves nothing), and none in an atomic section either.
  const Program p(
      "int x;\nvoid __VERIFIER_atomic_f(void) { if (__VERIFIER_nondet_int()) x = 1; else x = 2; }\n"
      "int main(void) { if (!__VERIFIER_nondet_int()) x = 3;\n"
      "  while (__VERIFIER_nondet_int()) x = 4;\n  __VERIFIER_atomic_f(); return 0; }\n");
  const std::string out = p.Translation();
  EXPECT_THAT(out, HasSubstr("c4: choose { skip } or { goto c5 };\n  c4_2: x := 3;"));
  EXPECT_THAT(out, HasSubstr("c5: choose { skip } or { goto "));
  EXPECT_THAT(out, HasSubstr("atomic { choose { x := 1 } or { x := 2 } }"));
  EXPECT_THAT(out, Not(HasSubstr(":= *")));
}

TEST(LoweringTest, ASwitchOrForOnANondeterministicValueIsAFreeChoice) {
  // A case is taken where the drawn value is its own: any case whose value the type holds, and
  // default (here past the switch) where values are left that no case names.
  const Program p(
      "int x;\nint main(void) { switch (__VERIFIER_nondet_int()) { case 0: x = 1; break;\n"
      "  case 1: x = 2; } for (; __VERIFIER_nondet_int();) x = 3; return 0; }\n");
  const std::string out = p.Translation();
  EXPECT_THAT(out, HasSubstr("c3: choose { goto c3_2 } or { goto c4 } or { goto c4_2 };"));
  EXPECT_THAT(out, HasSubstr("choose { skip } or { goto "));
  EXPECT_THAT(out, Not(HasSubstr(":= *")));
  // Of an unsigned char, a case of 300 is never taken; every value named, default is not.
  const Program narrow(
      "int x;\nunsigned char __VERIFIER_nondet_uchar(void);\nint main(void) {\n"
      "  switch (__VERIFIER_nondet_uchar()) { case 300: x = 1; break; case 2: x = 2; }\n"
      "  return 0; }\n");
  EXPECT_THAT(narrow.Translation(), HasSubstr("c5: choose { goto c5_4 } or { goto c6 };"));
  EXPECT_THAT(narrow.Translation(), Not(HasSubstr("goto c5_2 }")));
}

TEST(LoweringTest, ASpinInAnAtomicSectionWaitsForItsCondition) {
  // While it spins no other thread runs: the runs that go on are those where it did not spin.
  const Program p(
      "int l, s;\nvoid __VERIFIER_atomic_begin(void);\nvoid __VERIFIER_atomic_end(void);\n"
      "int main(void) { __VERIFIER_atomic_begin(); while (l != s) ; s = 1;\n"
      "  __VERIFIER_atomic_end(); return 0; }\n");
  EXPECT_THAT(p.Translation(), HasSubstr("atomic { assume !(l != s); s := 1 }"));
  const Program body(
      "int l;\nvoid __VERIFIER_atomic_begin(void);\nvoid __VERIFIER_atomic_end(void);\n"
      "int main(void) { __VERIFIER_atomic_begin(); while (l < 3) l++;\n"
      "  __VERIFIER_atomic_end(); return 0; }\n");
  EXPECT_THAT(body.Refusal(), HasSubstr("p.c:5:45: error: a loop inside an atomic section"));
}

TEST(LoweringTest, AJoinBesideAFamilyIsRefusedAtItsPlace) {
  // With roles no thread number names a role (which thread took it is open): `await pc[1] ==
  // end` would wait for some other thread.
  const Program p(
      "#include <pthread.h>\nint d;\nvoid *w(void *a) { d = 1; return 0; }\n"
      "void *r(void *a) { return 0; }\n"
      "int main(void) { pthread_t t, u; pthread_create(&u, 0, w, 0); pthread_join(u, 0);\n"
      "  if (d != 1) reach_error();\n  while (1) pthread_create(&t, 0, r, 0);\n}\n");
  EXPECT_THAT(p.Refusal(),
              HasSubstr("p.c:6:63: error: pthread_join beside threads created without bound"));
}

TEST(LoweringTest, AThreadLocalGlobalIsALocalWithItsInitialValue) {
  const Program p("__thread int mine = 3;\nint main(void) { mine = 1; return 0; }\n");
  const std::string out = p.Translation();
  EXPECT_THAT(out, HasSubstr("local int mine = 3;"));
  EXPECT_THAT(out, Not(HasSubstr("shared int mine")));
}

}  // namespace
}  // namespace druba::c
