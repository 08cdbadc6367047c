// Unit tests of the second stage's candidates (CandidateReader::OwnStateCandidates): how a
// thread's number compares with a shared counter while a flag has one value, and which values
// the counter keeps while a shared flag has one (invariants/flag_candidates.h).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "interp/program.h"
#include "invariants/instance_candidates.h"

namespace druba::predabs {
namespace {

// SV-COMP's 03_incdec as models/incdec-flags.drb has it: an incrementer checks that the counter
// is above what it read unless some thread has decremented (`dec`), a decrementer the converse.
constexpr const char* kIncDec =
    "shared nat value = 0;\nshared bool m = false;\nshared bool inc = false;\n"
    "shared bool dec = false;\nlocal nat v = 0;\nthread T * 1.. {\n"
    "  pick: choose { goto up } or { goto down };\n"
    "  up: atomic { assume !m; m := true };\n"
    "  read: v := value;\n"
    "  raise: atomic { inc := true; value := v + 1 };\n"
    "  open: m := false;\n"
    "  relock: atomic { assume !m; m := true };\n"
    "  check: assert dec || value > v;\n"
    "  unlock: m := false;\n"
    "  done: goto finish;\n"
    "  down: atomic { assume !m; m := true };\n"
    "  test: if value == 0 then { m := false; goto finish };\n"
    "  take: v := value;\n"
    "  lower: atomic { dec := true; value := v - 1 };\n"
    "  open2: m := false;\n"
    "  relock2: atomic { assume !m; m := true };\n"
    "  check2: assert inc || value < v;\n"
    "  unlock2: m := false;\n"
    "  finish: skip;\n}\n";

std::vector<std::string> SecondStage(const Program& p, std::uint32_t most_threads) {
  CandidateReader reader(p);
  for (std::uint32_t n = 1; n <= most_threads; ++n) {
    OrderedFigures::Instance figures;
    EXPECT_FALSE(reader.Explore(n, nullptr, figures, 20000));
  }
  return reader.OwnStateCandidates(nullptr);
}

bool Listed(const std::vector<std::string>& all, const std::string& one) {
  return std::find(all.begin(), all.end(), one) != all.end();
}

// The facts the every-count proof rests on (models/incdec-flags.drb, under `ctest -L long`): an
// incrementer at its check has the counter above what it read while no thread has decremented,
// and the counter is 0 until some thread increments. Without the flag the first is false (a
// decrement in between brings the counter back to what it read), and two threads show it. No
// candidate speaks of a thread's number where no thread reads it again: `v` after the check
// (`unlock`, `done`, `finish`) or before it is written (`pick`, `up`, `down`, `test`).
TEST(FlagCandidatesTest, ANumberAgainstTheCounterWhileAFlagIsDown) {
  const Program p = ParseProgram(kIncDec, "incdec.drb");
  const std::vector<std::string> out = SecondStage(p, 2);
  EXPECT_TRUE(Listed(out, "pc[self] != check || dec || v[self] < value"))
      << testing::PrintToString(out);
  EXPECT_TRUE(Listed(out, "inc || value == 0")) << testing::PrintToString(out);
  EXPECT_FALSE(Listed(out, "pc[self] != check || v[self] < value"));
  for (const std::string& c : out) {
    if (c.find("v[self]") == std::string::npos) continue;
    for (const char* dead : {"unlock", "unlock2", "done", "finish", "pick", "up", "down", "test"}) {
      EXPECT_EQ(c.find("pc[self] != " + std::string(dead) + " ||"), std::string::npos) << c;
    }
  }
  // Where `v` is read again, it is spoken of.
  EXPECT_TRUE(std::any_of(out.begin(), out.end(), [](const std::string& c) {
    return c.rfind("pc[self] != check2 ||", 0) == 0 && c.find("v[self]") != std::string::npos;
  })) << testing::PrintToString(out);
}

// A C program's main and the threads it starts, as the C kind lowers them (docs/c.md): one
// thread takes main's role, and the others wait until it has started them. `started` is never
// up while `role` is down; the others' pairs of values were all seen, and say nothing.
TEST(FlagCandidatesTest, TwoSharedFlagsNeverTogether) {
  const Program p = ParseProgram(
      "shared bool role = false;\nshared bool started = false;\nthread T * 1.. {\n"
      "  a: choose { assume !role; role := true; goto b } or { goto w };\n"
      "  b: started := true;\n  c: assume false;\n  w: await started;\n  x: skip;\n}\n",
      "roles.drb");
  const std::vector<std::string> out = SecondStage(p, 2);
  EXPECT_TRUE(Listed(out, "role || !started")) << testing::PrintToString(out);
  for (const char* seen : {"role || started", "!role || !started", "!role || started"}) {
    EXPECT_FALSE(Listed(out, seen)) << seen;
  }
}

// Two values a critical section swaps through a third (SV-COMP's 31_simple_loop5_vs rotates
// three): they differ while the lock is free and at every step of the swap but the one where
// both hold the same, and either may be the larger.
TEST(FlagCandidatesTest, TwoSharedCountersAtALocationAndWhileAFlagIsDown) {
  const Program p = ParseProgram(
      "shared int a = 1;\nshared int b = 2;\nshared int t = 0;\nshared int m = 0;\n"
      "thread T * 1.. {\n  l: atomic { assume m == 0; m := 1 };\n  s1: t := a;\n"
      "  s2: a := b;\n  s3: b := t;\n  u: atomic { m := 0; goto l };\n}\n",
      "swap.drb");
  const std::vector<std::string> out = SecondStage(p, 2);
  for (const char* fact : {"m != 0 || a != b", "pc[self] != s3 || a == b",
                           "pc[self] != s2 || a != b", "pc[self] != s2 || a == t"}) {
    EXPECT_TRUE(Listed(out, fact)) << fact << ": " << testing::PrintToString(out);
  }
  for (const char* not_seen : {"a < b", "a != b", "m != 0 || a < b", "pc[self] != l || a != b"}) {
    EXPECT_FALSE(Listed(out, not_seen)) << not_seen;
  }
}

}  // namespace
}  // namespace druba::predabs
