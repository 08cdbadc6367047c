// Differential test of the invariants from finite instances (invariants/ordered_invariant.h):
// random programs whose threads compare ids, claimed for every thread count >= 2, against brute
// force at 2..5 threads, and their certificates against the checker's own encoding.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "check/drb_check.h"
#include "common/files.h"
#include "common/json_reader.h"
#include "interp/model.h"
#include "interp/program.h"
#include "invariants/ordered_invariant.h"
#include "support/random_drb.h"
#include "support/sweep.h"

namespace druba::predabs {
namespace {

// Random entry protocols whose threads compare ids: flags per thread, an owner id, guards over
// the threads below or above one's own, and mutual exclusion asserted at one location. Whether it
// holds often depends on the thread count.
std::string EntryProtocol(std::mt19937& rng) {
  const auto r = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int n = r(4, 6);
  const int crit = r(1, n - 1);
  const auto cond = [&]() -> std::string {
    const std::string c = std::to_string(r(0, 2));
    switch (r(0, 6)) {
      case 0:
        return "(forall i: i >= self || f[i] != " + c + ")";
      case 1:
        return "(forall i: i <= self || f[i] < " + c + ")";
      case 2:
        return "(forall i != self: f[i] < " + c + ")";
      case 3:
        return "(exists i: i > self && f[i] == " + c + ")";
      case 4:
        return "o == self";
      case 5:
        return "o == -1";
      default:
        return "o < self";
    }
  };
  std::string out = "shared int f[threads] = 0;\nshared int o = -1;\nthread T * 2 {\n";
  for (int i = 0; i < n; ++i) {
    const std::string label = "s" + std::to_string(i);
    if (i == crit) {
      out += "  " + label + ": assert forall i != self: pc[i] != " + label + ";\n";
      continue;
    }
    std::string st;
    switch (r(0, 5)) {
      case 0:
      case 1:
        st = "f[self] := " + std::to_string(r(0, 2));
        break;
      case 2:
      case 3:
        st = "await " + cond();
        break;
      case 4:
        st = r(0, 1) == 0 ? "o := self" : "o := -1";
        break;
      default:
        st = "if " + cond() + " then goto s" + std::to_string(r(0, n - 1)) + " else goto s" +
             std::to_string(r(0, n - 1));
    }
    out += "  " + label + ": " + st + ";\n";
  }
  return out + "  back: goto s0;\n}\n";
}

// Random two-stage entry protocols in the shape of Dijkstra's and Knuth's (want, wait, announce,
// a second look, the critical section), each stage drawn from guards over the threads below,
// above or all others, or left out: some keep mutual exclusion for every count, some lose it only
// with a third thread.
std::string TwoStage(std::mt19937& rng) {
  const auto r = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  static const char* const kWait[] = {"forall j: j >= self || f[j] == 0",
                                      "forall j: j <= self || f[j] != 2",
                                      "forall j != self: f[j] < 2",
                                      "o == -1 || o == self",
                                      "forall j: j >= self || f[j] != 2",
                                      "exists j: j != self && f[j] == 0",
                                      "true"};
  static const char* const kLook[] = {
      "exists j: j != self && f[j] == 2", "exists j: j < self && f[j] != 0",
      "exists j: j > self && f[j] == 2", "o != self", "exists j: j < self && f[j] == 2"};
  std::string out = "shared int f[threads] = 0;\nshared int o = -1;\nthread T * 2 {\n";
  out += "  want: f[self] := 1;\n";
  out += std::string("  wait: await ") + kWait[r(0, 6)] + ";\n";
  out += "  announce: f[self] := 2" + std::string(r(0, 1) == 0 ? ", o := self" : "") + ";\n";
  if (r(0, 3) != 0) out += std::string("  look: if ") + kLook[r(0, 4)] + " then goto want;\n";
  if (r(0, 2) == 0) out += std::string("  again: if ") + kLook[r(0, 4)] + " then goto want;\n";
  out += "  cs: assert forall i != self: pc[i] != cs;\n";
  out += "  leave: atomic { f[self] := 0; o := -1; goto want };\n}\n";
  return out;
}

// The smallest count in 2..5 at which a thread can fail, by breadth-first search.
std::optional<std::uint32_t> FirstFailing(const Program& program) {
  for (std::uint32_t n = 2; n <= 5; ++n) {
    IntModel model(program, n);
    if (BreadthFirst(model, [&](const std::vector<Word>& s, std::size_t) {
          return model.AnyThreadFailed(StateView(s));
        })) {
      return n;
    }
  }
  return std::nullopt;
}

// The checker's answer on the certificate of `invariant`, claimed for every count >= 2 of the
// program `text` (read from `path`).
check::CheckResult CheckOrderedClaim(const std::string& text, const std::string& path,
                                     const std::vector<std::string>& invariant,
                                     unsigned timeout_ms) {
  return check::CheckDrbCertificate(ParseJson(OrderedCertificate("d", 2, invariant), "c.json"), "d",
                                    text, path, nullptr, timeout_ms);
}

// A claim `r` of safe for every count >= 2: no thread fails at 2..5 threads by brute force
// (`failing`), and the checker finds its certificate valid. The checker's answer.
check::CheckResult ExpectSafeClaimHolds(const OrderedResult& r,
                                        const std::optional<std::uint32_t>& failing,
                                        const std::string& text) {
  EXPECT_FALSE(failing) << "safe for every count, but a thread fails at " << *failing
                        << " threads\n"
                        << text;
  check::CheckResult c = CheckOrderedClaim(text, "r.drb", r.invariant, 5000);
  EXPECT_TRUE(c.valid) << c.failed << ": " << c.example << "\n" << text;
  return c;
}

TEST(OrderedTest, EveryCountClaimsHoldForSmallCounts) {
  Generator gen(2026);
  gen.SetOrdered(true);
  const int programs = testing::Sweep(12);  // 48 in `ctest -L long`
  std::size_t safe = 0, violations = 0, unknown = 0, refused = 0, certified = 0;
  std::mt19937 rng(35);
  for (int round = 0; round < programs; ++round) {
    // Entry protocols of two kinds, and the generator's programs with an owner id.
    const std::string text = round % 3 == 0   ? EntryProtocol(rng)
                             : round % 3 == 1 ? TwoStage(rng)
                                              : gen.Program(2, 4, true, 0, false);
    const Program program = ParseProgram(text, "r.drb");
    // Candidates from 2 threads alone: every failure at 3..5 threads is for the checks for every
    // count to find (from 2 to 4 threads, the instances would see it first).
    const OrderedResult r = ProveEveryOrderedCount(text, program, 2, 2, 5000, nullptr);
    const std::optional<std::uint32_t> failing = FirstFailing(program);
    if (r.verdict == Verdict::kSafe) {
      ++safe;
      certified += ExpectSafeClaimHolds(r, failing, text).valid ? 1 : 0;
    } else if (r.verdict == Verdict::kViolation) {
      ++violations;
      EXPECT_EQ(failing, std::optional<std::uint32_t>(r.violation_at)) << text;  // at 2
    } else {
      ++unknown;
      refused += failing ? 1 : 0;  // a failure at 3..5 threads that the checks did not let pass
      EXPECT_TRUE(!failing || *failing > 2)
          << "unknown, but a thread fails at " << *failing << " threads\n"
          << text;
    }
  }
  std::fprintf(stderr,
               "OrderedTest: %d programs: %zu safe for every count (each checked by brute force "
               "at 2..5 threads; %zu certificates valid), %zu violations at 2 threads, %zu unknown "
               "(%zu of them with a failure at 3..5 threads)\n",
               programs, safe, certified, violations, unknown, refused);
  EXPECT_GE(safe, testing::AtLeastU(6));
  EXPECT_GE(violations, testing::AtLeastU(3));
  EXPECT_GE(refused, testing::AtLeastU(1));
}

// Random lock-protected counters, symmetric (the route auto takes for them when the abstraction's
// first round does not close): each thread adds to a shared counter, asserts something of it and
// takes some back, under a lock or not. What holds for every count rests on the counter's
// weighted count of threads by location (`c == 2 * count(j: pc[j] == check || pc[j] == sub)`,
// weight_candidates.h) with the lock's (`m == count(...)`); unbalanced or unlocked ones fail at
// 2 threads, some only at more. Each claim against brute force at 2..5 threads, each certificate
// against the checker.
std::string LockedCounter(std::mt19937& rng) {
  const auto r = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int up = r(1, 2);
  const int down = r(0, 4) == 0 ? 3 - up : up;
  const bool locked = r(0, 4) != 0;
  const std::string u = std::to_string(up);
  const std::string conditions[] = {
      "c == " + u, "c <= " + u, "c >= " + u, "c < " + std::to_string(2 * up), "c <= 2", "c != 3"};
  // Bounded, so that brute force ends: an unbalanced counter runs out of its range, which is a
  // failure too.
  std::string out = "shared int[-6, 6] c = 0;\nshared int m = 0;\nthread T * 2 {\n";
  out += locked ? "  lock: atomic { await m == 0; m := 1 };\n" : "  lock: skip;\n";
  out += "  add: c := c + " + u + ";\n";
  out += "  check: assert " + conditions[r(0, 5)] + ";\n";
  out += "  sub: c := c - " + std::to_string(down) + ";\n";
  out += locked ? "  unlock: m := 0;\n" : "  unlock: skip;\n";
  out += r(0, 1) == 0 ? "  back: goto lock;\n}\n" : "}\n";
  return out;
}

TEST(OrderedTest, WeightedCountsOfLockedCountersHoldForSmallCounts) {
  const int programs = testing::Sweep(12);
  std::size_t safe = 0, violations = 0, unknown = 0, weighted = 0;
  std::mt19937 rng(58);
  for (int round = 0; round < programs; ++round) {
    const std::string text = LockedCounter(rng);
    const Program program = ParseProgram(text, "r.drb");
    const OrderedResult r = ProveEveryOrderedCount(text, program, 2, 4, 5000, nullptr);
    const std::optional<std::uint32_t> failing = FirstFailing(program);
    if (r.verdict == Verdict::kSafe) {
      ++safe;
      weighted += std::any_of(r.invariant.begin(), r.invariant.end(), [](const std::string& c) {
        return c.starts_with("c == ") && c.find("count(") != std::string::npos;
      });
      // The checker decides each step with the invariant at the threads the step names: no
      // query falls back to the quantified invariant, which took a double-lock task 10 s a step.
      const check::CheckResult c = ExpectSafeClaimHolds(r, failing, text);
      EXPECT_TRUE(c.passed.empty() || c.passed.back().ends_with(", 0 quantified)"))
          << c.passed.back() << "\n"
          << text;
    } else if (r.verdict == Verdict::kViolation) {
      ++violations;
      EXPECT_EQ(failing, std::optional<std::uint32_t>(r.violation_at)) << text;
    } else {
      ++unknown;
    }
  }
  std::fprintf(stderr,
               "OrderedTest: %d locked counters: %zu safe for every count (%zu with the counter "
               "as a weighted count), %zu violations, %zu unknown\n",
               programs, safe, weighted, violations, unknown);
  EXPECT_GE(weighted, testing::AtLeastU(3));
  EXPECT_GE(violations, testing::AtLeastU(2));
}

}  // namespace
}  // namespace druba::predabs

namespace druba::predabs {
namespace {

// Each thread adds one to x, and x reaches 5 only with five threads: no instance of 2 to 4
// threads fails, and the checks for every count must not let their candidates through (at 2 and
// 3 threads alone they are inductive and exclude the failure). The blocking candidates (`x < 5`,
// `pc[self] != a || x < 4`, ...) make Houdini drop some with a step of `a` and then need that
// step asked again with what is left: skipped, `x < 5` was kept and the answer was safe.
TEST(OrderedTest, AFailureOnlyAtFiveThreadsIsNeverSafe) {
  const std::string text =
      "shared int x = 0;\nthread T * 2 {\n  a: x := x + 1;\n  b: assert x < 5;\n}\n";
  const Program program = ParseProgram(text, "five.drb");
  const OrderedResult r = ProveEveryOrderedCount(text, program, 2, 4, 5000, nullptr);
  EXPECT_EQ(r.verdict, Verdict::kUnknown) << r.reason;
  ASSERT_EQ(r.figures.instances.size(), 3U);
  EXPECT_FALSE(r.figures.instances.back().failed);
  // Three instances from the first (kOrderedInstances), the fourth only for rank candidates: a
  // fifth thread is explored from 3 threads on.
  EXPECT_EQ(ProveEveryOrderedCount(text, program, 2, 5, 5000, nullptr).figures.instances.size(),
            3U);
  EXPECT_EQ(ProveEveryOrderedCount(text, program, 3, 5, 5000, nullptr).violation_at, 5U);
}

// A given candidate that leaves the viewer out (`forall i != self: ...`) says nothing about the
// viewer itself: read for i == self too, "no other thread shows my id" would be "no thread shows
// an id", false after the first step, and dropped.
TEST(OrderedTest, ACandidateWithoutTheViewerSaysNothingOfIt) {
  const std::string text =
      "shared int v[threads] = -1;\nthread T * 2 {\n  a: v[self] := self;\n"
      "  b: assert forall i != self: v[i] != self;\n}\n";
  const Program program = ParseProgram(text, "ids.drb");
  const std::string given = "forall i != self: v[i] != v[self] || v[i] == -1";
  const OrderedResult r = ProveEveryOrderedCount(text, program, 2, 2, 5000, nullptr, {given});
  ASSERT_EQ(r.verdict, Verdict::kSafe) << r.reason;
  EXPECT_NE(std::find(r.invariant.begin(), r.invariant.end(), given), r.invariant.end());
}

// Where the invariant is taken at a few named threads only (druba's ground queries, the
// checker's), a value that is no thread (`owner`, -1 throughout) is one of them; the formula
// `owner != self || pc[j] != b` holds at every thread, but at -1 it would say no thread is at b,
// and hide the failure there (thread 5's: not among the instances, 2 threads). Without the range
// guard both say safe/valid (tried).
TEST(OrderedTest, AnIdOutsideTheThreadsSaysNothing) {
  const std::string text =
      "shared int owner = -1;\nthread T * 2 {\n  b: assert self < 5;\n  c: assume false;\n"
      "  d: owner := self;\n}\n";
  const Program program = ParseProgram(text, "owner.drb");
  const std::vector<std::string> given = {"forall j: owner != self || pc[j] != b", "owner == -1",
                                          "pc[self] != d"};
  const OrderedResult r = ProveEveryOrderedCount(text, program, 2, 2, 500, nullptr, given);
  EXPECT_NE(r.verdict, Verdict::kSafe) << r.reason;
  const check::CheckResult c = check::CheckDrbCertificate(
      ParseJson(OrderedCertificate("d", 2, given), "c.json"), "d", text, "owner.drb", nullptr, 500);
  EXPECT_FALSE(c.valid);
}

// A bundled model (models/NAME.drb) and what the invariants from `first` to `last` threads prove
// of it for every count >= `first`.
struct BundledProof {
  std::string path;
  std::string text;
  OrderedResult result;
};
BundledProof ProveBundledModel(const std::string& name, std::uint32_t first = 2,
                               std::uint32_t last = 4) {
  BundledProof out;
  out.path = std::string(DRUBA_SOURCE_DIR) + "/models/" + name + ".drb";
  out.text = ReadFile(out.path);
  const Program program = ParseProgram(out.text, out.path);
  out.result = ProveEveryOrderedCount(out.text, program, first, last, 10000, nullptr);
  return out;
}

// Szymanski's mutual exclusion for every count rests on an existential fact (a thread back at
// `close` from `hold` saw another's flag 4): the checker accepts the invariant druba found, and
// rejects it without that fact.
TEST(OrderedTest, SzymanskiNeedsItsExistentialFact) {
  // Solver work, which the sanitizers do not see (their run has DRUBA_SWEEP below 1).
  if (testing::SweepFactor() < 1) GTEST_SKIP() << "solver work only";
  const BundledProof proof = ProveBundledModel("szymanski");
  const OrderedResult& r = proof.result;
  ASSERT_EQ(r.verdict, Verdict::kSafe) << r.reason;
  EXPECT_EQ(r.figures.own_states, 0U);  // the first stage's candidates prove it
  std::vector<std::string> without;
  for (const std::string& f : r.invariant) {
    if (f.find("exists") == std::string::npos) without.push_back(f);
  }
  ASSERT_LT(without.size(), r.invariant.size());
  for (const bool whole : {true, false}) {
    const check::CheckResult c =
        CheckOrderedClaim(proof.text, proof.path, whole ? r.invariant : without, 10000);
    EXPECT_EQ(c.valid, whole) << c.failed << ": " << c.example;
  }
}

// A reference count (models/refcount.drb): its invariant relates the counter to a count of
// threads by location (`refs == count(j: held[j])`). The checker decides each step with the
// invariant at the threads the step names only if it knows that two named threads both counted
// make the count at least 2 (Symbolic::CountFacts); without that, two of its steps went to the
// quantified invariant (a double-lock task's four such queries took 45 of its 60 s).
TEST(OrderedTest, TheCheckerDecidesAReferenceCountsStepsAtTheThreadsTheyName) {
  // Solver work: under the sanitizers (DRUBA_SWEEP 0.125) it shows nothing more.
  if (testing::SweepFactor() < 0.5) GTEST_SKIP() << "solver work only";
  const BundledProof proof = ProveBundledModel("refcount");
  ASSERT_EQ(proof.result.verdict, Verdict::kSafe) << proof.result.reason;
  const check::CheckResult c =
      CheckOrderedClaim(proof.text, proof.path, proof.result.invariant, 10000);
  ASSERT_TRUE(c.valid) << c.failed << ": " << c.example;
  EXPECT_TRUE(c.passed.back().ends_with(", 0 quantified)")) << c.passed.back();
}

// A test-and-set lock with backoff (models/backoff-tas.drb): the first stage's candidates do not
// exclude a failure, since its own states, told apart by the delay's many values, are too many
// to be paired (from 1 to 3 threads, as `--threads 1..` reads them); the second stage's, of live
// locals with the delay left out, say that the lock is taken while a thread that read 0 is on its
// way in, and prove it. The checker accepts them.
TEST(OrderedTest, ASecondStageOfOwnStatesProvesABackoffLock) {
  // Solver work (6 s); scripts/test (DRUBA_SWEEP 0.5) has the model's own header, which needs
  // the second stage too (models/backoff-tas.drb).
  if (testing::SweepFactor() < 1) GTEST_SKIP() << "solver work only";
  const BundledProof proof = ProveBundledModel("backoff-tas", 1, 3);
  ASSERT_EQ(proof.result.verdict, Verdict::kSafe) << proof.result.reason;
  EXPECT_GT(proof.result.figures.own_states, 0U);
  const auto& invariant = proof.result.invariant;
  EXPECT_NE(std::find(invariant.begin(), invariant.end(),
                      "pc[self] != test || got[self] != 0 || lock == 1"),
            invariant.end());
  const check::CheckResult c = CheckOrderedClaim(proof.text, proof.path, invariant, 10000);
  EXPECT_TRUE(c.valid) << c.failed << ": " << c.example;
}

// Counts by rank (docs/drb.md): every thread sets its level to 0. At most n - 1 - j threads are
// above level j (none is), but not at or above it (all n are at 0): druba keeps the first and
// drops the second, and the checker, with its own rank counts, accepts the first alone and
// rejects the second.
TEST(OrderedTest, ARankCountIsKeptWhereItHoldsAndDroppedWhereNot) {
  const std::string text =
      "shared int level[threads] = -1;\nthread T * 2 {\n  a: level[self] := 0;\n"
      "  b: assume false;\n}\n";
  const Program program = ParseProgram(text, "levels.drb");
  const std::string above = "forall j: count(i: level[i] > j) <= count(i: true) - 1 - j";
  const std::string at = "forall j: count(i: level[i] >= j) <= count(i: true) - 1 - j";
  const OrderedResult r = ProveEveryOrderedCount(text, program, 2, 3, 5000, nullptr, {above, at});
  ASSERT_EQ(r.verdict, Verdict::kSafe) << r.reason;
  EXPECT_NE(std::find(r.invariant.begin(), r.invariant.end(), above), r.invariant.end());
  EXPECT_EQ(std::find(r.invariant.begin(), r.invariant.end(), at), r.invariant.end());
  for (const std::string& f : {above, at}) {
    const check::CheckResult c =
        check::CheckDrbCertificate(ParseJson(OrderedCertificate("d", 2, {f}), "c.json"), "d", text,
                                   "levels.drb", nullptr, 5000);
    EXPECT_EQ(c.valid, f == above) << f << ": " << c.failed << ": " << c.example;
  }
}

}  // namespace
}  // namespace druba::predabs
