// Differential tests of refinement: the shipped loop (predabs::Verify) against brute force, and the
// candidates it reads off a program.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "abstraction/driver.h"
#include "abstraction/upper_bound.h"
#include "check/drb_check.h"
#include "check/drb_explicit.h"
#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "interp/model.h"
#include "interp/program.h"
#include "predabs/brute_force.h"
#include "predabs/predicate_abstraction.h"
#include "predabs/report_words.h"
#include "refine/preconditions.h"
#include "refine/refine.h"
#include "smt/encoder.h"
#include "smt/solver.h"
#include "strategy/certificate.h"
#include "strategy/run_hooks.h"
#include "strategy/strategy.h"
#include "strategy/thread_counts.h"
#include "support/random_drb.h"
#include "support/sweep.h"

namespace druba::predabs {
namespace {

// Refinement against brute force: random finite programs verified with the paper's algorithm
// alone (no exact search after a failed closure test), refined at each closure break as
// `druba verify` refines. Every `safe` must have no reachable failure and exactly the abstraction
// of the reachable states as its set (under the refined abstraction); every violation must be
// real. Reports the share of programs without a reachable failure that refinement proves where
// the given abstraction alone did not. 24 programs by default, 96 under `ctest -L long`.
TEST(PredabsTest, RefinementAgreesWithBruteForce) {
  Generator gen(19);
  std::size_t given = 0;
  std::size_t refined = 0;
  std::size_t no_failure = 0;
  std::size_t added = 0;
  for (int round = 0; round < testing::Sweep(24); ++round) {
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const std::string text = gen.Program(n, 3 + round % 2, round % 2 == 0, round % 2, true);
    const Program program = ParseProgram(text, "random.drb");
    IntModel brute_model(program, n);
    const States reachable = Reachable(brute_model);
    const bool fails = std::any_of(reachable.begin(), reachable.end(), [&](const auto& s) {
      return brute_model.AnyThreadFailed(StateView(s));
    });
    // The loop `druba verify` runs (strategy/strategy.h), each round the paper's algorithm alone.
    run::RunOptions options;
    options.exhaust_share = 0;
    DrbOptions drb;
    drb.solver_timeout_ms = 5000;
    drb.horn = HornUse::kOff;  // refinement alone (horn_test.cc tests the Horn solver's part)
    const ThreadCounts threads = ParseThreadCounts(std::to_string(n), program, 8);
    const ChosenAbstraction chosen = ChooseAbstraction(program, "", threads);
    LimitWatch limits({0, 0}, nullptr);
    const Verified verified =
        Verify({options, drb, text, ""}, program, chosen, threads, limits, {});
    const std::optional<Refiner>& refiner = verified.refiner;
    const Round& last = verified.round;
    const Verdict verdict = last.counts.verdict;
    const Program& final_program = verified.program(program);
    const AbstractionSpec& spec = verified.spec(chosen.spec());
    const std::string block = refiner ? refiner->Block() : std::string();
    if (verdict == Verdict::kSafe) {
      EXPECT_FALSE(fails) << text << block;
      IntModel model(final_program, n);
      const PredicateAbstraction abs(model, spec, 5000);
      EXPECT_EQ(StoreSet(*KeptOf(last.runs.back()).abstract_set),
                AbstractSet(abs, Reachable(model)))
          << text << block;
    }
    if (verdict == Verdict::kViolation) {
      EXPECT_TRUE(fails) << text;
    }
    given += verdict == Verdict::kSafe && !refiner;  // the first round proved it
    if (!fails) {
      ++no_failure;
      refined += verdict == Verdict::kSafe;
    }
    added += refiner ? refiner->figures().added.size() : 0;
  }
  std::fprintf(stderr,
               "Refinement: of %zu programs without a reachable failure the given abstraction "
               "proves %zu (%.1f%%), refinement %zu (%.1f%%); %zu predicates added in all\n",
               no_failure, given,
               100.0 * static_cast<double>(given) / static_cast<double>(no_failure), refined,
               100.0 * static_cast<double>(refined) / static_cast<double>(no_failure), added);
  EXPECT_GT(refined, given);  // refinement proves programs the given abstraction cannot
  EXPECT_GT(added, testing::AtLeastU(5));
}

// The candidates of a small program, and a block that parses back to its abstraction.
// A round that takes on the search of the round before (PlateauDriver::Adopt, abstraction/
// replay.h) against one that searches from the start: random programs verified with a coarser
// abstraction (the file's without its later predicates), whose search the next run adopts under
// the file's. Without the exact search after a failed closure test the two runs must agree in
// everything: verdict, schedule (each raise's bounds and new abstract states), final bounds,
// abstract set and states. With it (the default), the adopted search may stand further out, so
// only the answers are held: a `safe` set is the abstraction of the reachable states, a
// violation is real and its trace ends in a failure.
TEST(PredabsTest, RoundsTakeOnTheSearchOfTheRoundBefore) {
  Generator gen(41);
  std::size_t same = 0;
  std::size_t replayed = 0;
  std::size_t answered = 0;
  for (int round = 0; round < testing::Sweep(80); ++round) {
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const std::string text = gen.Program(n, 3 + round % 2, round % 2 == 0, 3, round % 3 != 2);
    std::string coarse = text;  // p0 alone
    for (const std::string p : {"  predicate p1:", "  predicate p2:"}) {
      const std::size_t at = coarse.find(p);
      coarse.erase(at, coarse.find('\n', at) + 1 - at);
    }
    const Program fine_program = ParseProgram(text, "random.drb");
    const Program coarse_program = ParseProgram(coarse, "random.drb");
    const double share = round % 2 == 0 ? 0 : 4;
    using Driver = PlateauDriver<IntModel, PredicateAbstraction>;
    IntModel coarse_model(coarse_program, n);
    const PredicateAbstraction coarse_abs(coarse_model, coarse_program.abstractions[0], 5000);
    Driver before(coarse_model, coarse_abs);
    before.SetExhaustBudget(share);
    if (before.Verify().verdict == Verdict::kViolation) continue;
    std::unique_ptr<Driver::Search> search = before.Release();
    ASSERT_NE(search, nullptr);
    IntModel model(fine_program, n);
    const PredicateAbstraction abs(model, fine_program.abstractions[0], 5000);
    Driver adopting(model, abs);
    adopting.SetExhaustBudget(share);
    ASSERT_TRUE(adopting.Adopt(search)) << text;
    const RunResult got = adopting.Verify();
    replayed += got.replayed_states > 0;
    IntModel fresh_model(fine_program, n);
    const PredicateAbstraction fresh_abs(fresh_model, fine_program.abstractions[0], 5000);
    Driver fresh(fresh_model, fresh_abs);
    fresh.SetExhaustBudget(share);
    const RunResult want = fresh.Verify();
    if (share == 0) {
      ASSERT_EQ(got.verdict, want.verdict) << text;
      ASSERT_EQ(got.schedule.size(), want.schedule.size()) << text;
      for (std::size_t i = 0; i < got.schedule.size(); ++i) {
        EXPECT_EQ(got.schedule[i].after, want.schedule[i].after) << text;
        EXPECT_EQ(got.schedule[i].new_abstract, want.schedule[i].new_abstract) << text;
      }
      EXPECT_EQ(got.bounds, want.bounds) << text;
      EXPECT_EQ(adopting.num_states(), fresh.num_states()) << text;
      EXPECT_EQ(StoreSet(adopting.abstract_states()), StoreSet(fresh.abstract_states())) << text;
      ++same;
      continue;
    }
    IntModel brute(fine_program, n);
    const auto truth = AbstractSet(abs, Reachable(brute));
    const bool fails =
        std::any_of(truth.begin(), truth.end(), [](const auto& a) { return a.back() != 0; });
    answered += got.verdict != Verdict::kUnknown;
    if (got.verdict == Verdict::kSafe) {
      EXPECT_FALSE(fails) << text;
      EXPECT_EQ(StoreSet(adopting.abstract_states()), truth) << text;
    }
    if (got.verdict == Verdict::kViolation) {
      ASSERT_TRUE(fails) << text;
      const std::vector<TraceStep> trace = adopting.Trace(*got.violation_record);
      ASSERT_FALSE(trace.empty()) << text;
      EXPECT_TRUE(model.AnyThreadFailed(StateView(trace.back().state))) << text;
    }
  }
  std::fprintf(stderr,
               "RoundsTakeOn: %zu runs without the exact search agree with a search from the "
               "start; %zu with it answered; %zu took states on\n",
               same, answered, replayed);
  EXPECT_GT(same, testing::AtLeastU(20));
  EXPECT_GT(answered, testing::AtLeastU(15));
  EXPECT_GT(replayed, testing::AtLeastU(30));
}

TEST(PredabsTest, RefinementCandidatesComeFromTheProgram) {
  const std::string text =
      "shared nat s = 0;\nshared nat t = 0;\nlocal int l = -1;\nthread T * 2 {\n"
      "  take: l := fetch_and_add(t);\n  wait: while s != l do;\n"
      "  crit: assert forall i != self: pc[i] != crit;\n"
      "  leave: atomic { s := s + 1; goto take };\n}\n";
  const Program program = ParseProgram(text, "ticket.drb");
  const std::vector<std::string> candidates = CandidatePredicates(program);
  const auto has = [&](const std::string& c) {
    return std::find(candidates.begin(), candidates.end(), c) != candidates.end();
  };
  EXPECT_TRUE(has("s == l"));              // a condition's atom, != as ==
  EXPECT_TRUE(has("l == -1"));             // a variable at its initial value
  EXPECT_TRUE(has("t < s"));               // a pair compared both ways
  EXPECT_TRUE(has("forall i: l[i] < t"));  // an atom of every thread
  EXPECT_TRUE(has("forall i != self: pc[i] != wait"));
  // Uniqueness among the threads that hold a value (take assigns l before reading it).
  EXPECT_TRUE(has("forall i != self: pc[i] == take || l != l[i]"));
  EXPECT_EQ(candidates.front(), "s == l");  // conditions first

  const Program with_block = ParseProgram(
      text + "abstraction a {\n  track pc;\n  predicate P: s == l;\n  predicate t < s;\n}\n",
      "ticket.drb");
  const std::string block = AbstractionBlock(with_block, with_block.abstractions[0], "b");
  const Program again = ParseProgram(text + block, "ticket.drb");
  const AbstractionSpec& b = again.abstractions[0];
  ASSERT_EQ(b.predicates.size(), 2U);
  EXPECT_EQ(b.predicates[0].name, "P");
  EXPECT_EQ(b.predicates[1].name, "t < s");
  EXPECT_EQ(b.pcs.size(), 1U);
}

// A program that is not symmetric may index a per-thread array by a thread's own value in its
// abstraction block (`victim[lv]`), but refinement proposes no such predicate: at a fixed count it
// sent Ricart-Agrawala's search after `req[k]` for over 18 minutes (CheckAbstractionFits).
TEST(PredabsTest, OwnIndicesInGivenPredicatesOnly) {
  const Program p = ParseProgram(
      "shared int victim[threads] = -1;\nlocal int lv = 0;\nthread T * 2 {\n"
      "  a: victim[lv] := self;\n  b: assert self < 9;\n}\n"
      "abstraction a {\n  predicate victim[lv] >= -1;\n}\n",
      "own.drb");
  ASSERT_FALSE(p.symmetric);
  EXPECT_NO_THROW(CheckAbstractionFits(p, p.abstractions[0], 2));
  EXPECT_THROW(CheckAbstractionFits(p, p.abstractions[0], 2, false), InputError);
}

// How often a text is among the refinement candidates of the program `text`.
std::function<std::ptrdiff_t(const std::string&)> CandidateCounter(const std::string& text) {
  auto candidates = std::make_shared<const std::vector<std::string>>(
      CandidatePredicates(ParseProgram(text, "candidates.drb")));
  return [candidates](const std::string& c) {
    return std::count(candidates->begin(), candidates->end(), c);
  };
}

// A shared counter as the weighted count of the threads by their potential (its change from the
// first location): two fetch-and-adds, a lock taken as `assume m == 0; m := 1`, and a C `x++` of
// an unsigned read into a copy and written back wrapped (the translation's comparison wrap).
TEST(PredabsTest, RefinementCandidatesCountThreadsByWeight) {
  const auto faa = CandidateCounter(
      "shared int c = 0;\nthread T * 2.. {\n  a: c := c + 1;\n  b: c := c + 1;\n"
      "  w: await forall i: pc[i] == w || pc[i] == k;\n  k: assert c == 2 * count(i: true);\n}\n");
  EXPECT_EQ(faa("c == count(i: pc[i] == b) + 2 * count(i: (pc[i] == w || pc[i] == k || pc[i] == "
                "end))"),
            1);
  const auto lock = CandidateCounter(
      "shared int m = 0;\nthread T * 2.. {\n  a: atomic { assume m == 0; m := 1 };\n"
      "  b: skip;\n  c: atomic { assume m == 1; m := 0 };\n}\n");
  EXPECT_EQ(lock("m == count(i: pc[i] == b || pc[i] == c)") +
                lock("m == count(i: (pc[i] == b || pc[i] == c))"),
            1);
  const auto wrapped = CandidateCounter(
      "shared int v = 0;\nlocal int t = 0;\nthread T * 2.. {\n  a: t := v;\n"
      "  b: v := (if (t + 1) >= 4294967296 then (t + 1) - 4294967296 else (t + 1));\n"
      "  c: skip;\n}\n");
  EXPECT_EQ(wrapped("v == count(i: (pc[i] == c || pc[i] == end))"), 1);
  // A Boolean lock counts as 0 or 1, in the C kind's words (`(if m then 1 else 0)`, `(1 != 0)`)
  // and in plain ones (`assume !m; m := true`); a flag set with no value known first is no count.
  const auto boolean = CandidateCounter(
      "shared bool m = false;\nshared bool f = false;\nthread T * 2.. {\n"
      "  a: atomic { assume ((if m then 1 else 0) == 0); m := (1 != 0) };\n  b: f := true;\n"
      "  c: atomic { assume m; m := false };\n  d: atomic { assume !m; m := true };\n"
      "  e: atomic { assume ((if m then 1 else 0) == 1); m := (0 != 0) };\n}\n");
  EXPECT_EQ(boolean("(if m then 1 else 0) == count(i: (pc[i] == b || pc[i] == c || pc[i] == e))"),
            1);
  EXPECT_EQ(boolean("(if f then 1 else 0) == count(i: pc[i] == c)"), 0);
}

// Every other thread's assertion where it is made, also under the branch it is made in: the C
// kind writes `assert(c)` as `if !(c) then { assert __exited; assume false }`, and a flag that no
// statement sets (main never returns) claims only that the branch is not taken.
TEST(PredabsTest, RefinementCandidatesHoldOtherThreadsToTheirAssertions) {
  const auto count = CandidateCounter(
      "shared bool __exited = false;\nshared int v = 0;\nlocal int t = 0;\nthread T * 2.. {\n"
      "  a: t := v;\n  b: v := v + 1;\n"
      "  c: atomic { if !(v > t) then { assert __exited; assume false } else { } };\n"
      "  d: if t == 3 then { assert v != 9 } else { };\n  e: assert t >= 0;\n}\n");
  EXPECT_EQ(count("forall i != self: pc[i] != c || !(!(v > t[i]))"), 1);
  EXPECT_EQ(count("forall i != self: pc[i] != d || !((t[i] == 3)) || (v != 9)"), 1);
  EXPECT_EQ(count("forall i != self: pc[i] != e || (t[i] >= 0)"), 1);
  // An atom of another thread wherever its locals are live: t from b (read at c) on, not at a.
  EXPECT_EQ(count("forall i != self: pc[i] != c || t[i] < v"), 1);
  EXPECT_EQ(count("forall i != self: pc[i] != b || t[i] < v"), 1);
  EXPECT_EQ(count("forall i != self: pc[i] != a || t[i] < v"), 0);
  const auto exits = CandidateCounter(
      "shared bool __exited = false;\nshared int v = 0;\nthread T * 2.. {\n"
      "  c: if v > 3 then { assert __exited } else { };\n  d: __exited := true;\n}\n");
  EXPECT_EQ(exits("forall i != self: pc[i] != c || !((v > 3)) || __exited"), 1);  // it is set
}

// Candidates the conditions do not spell: a constant the program assigns (not its initial value,
// which has its own atom; not a Boolean's), and each residue of a variable taken modulo a literal.
TEST(PredabsTest, RefinementCandidatesIncludeAssignedConstantsAndResidues) {
  const auto count = CandidateCounter(
      "shared int data = 0;\nshared nat v = 0;\nshared bool f = false;\nlocal int l = 7;\n"
      "thread T * 2 {\n  a: data := 40, f := true, l := 3;\n  b: data := data + 2, l := 7;\n"
      "  c: if v % 2 == 0 then v := v + 1;\n  d: assert data != 1;\n}\n");
  EXPECT_EQ(count("data == 40"), 1);  // assigned
  EXPECT_EQ(count("l == 3"), 1);      // a local's, in the viewing thread's words
  EXPECT_EQ(count("l == 7"), 1);      // its initial value: once
  EXPECT_EQ(count("data == 0"), 1);
  EXPECT_EQ(count("f == 1"), 0);  // a Boolean is its own atom
  EXPECT_EQ(count("v % 2 == 0"), 1);
  EXPECT_EQ(count("v % 2 == 1"), 1);
  EXPECT_EQ(count("data == 42"), 0);               // computed, not assigned
  EXPECT_EQ(count("3 <= l && l <= 7"), 1);         // only ever set to constants
  EXPECT_EQ(count("0 <= data && data <= 40"), 0);  // also set to data + 2
  EXPECT_EQ(count("v - data == 1"), 0);            // never together
}

// The last candidates: ranges, and differences and sums of related pairs with small literals.
TEST(PredabsTest, RefinementCandidatesIncludeRangesAndDifferences) {
  const auto count = CandidateCounter(
      "shared int buf[2] = 0;\nshared nat head = 0;\nshared nat tail = 0;\nshared int f = 0;\n"
      "thread T * 2 {\n  a: await tail - head < 2;\n  b: buf[tail % 2] := 1;\n"
      "  c: tail := tail + 1, f := 2;\n  d: buf[head % 2] := 0, f := 1;\n}\n");
  EXPECT_EQ(count("0 <= f && f <= 2"), 1);
  EXPECT_EQ(count("0 <= buf[0] && buf[0] <= 1"), 1);  // written at a run-time index
  EXPECT_EQ(count("tail - head == 2"), 1);
  EXPECT_EQ(count("head - tail == 1"), 1);
  EXPECT_EQ(count("head + tail == 2"), 1);
  EXPECT_EQ(count("tail - f == 1"), 0);  // read apart only
  EXPECT_EQ(count("tail - head == 5"), 0);
}

// Preconditions through one statement (refine/preconditions.h): per path, the predicates and
// the assertions with the path's writes substituted; nothing through what substitution cannot
// follow.
TEST(PredabsTest, PreconditionsFollowEachPath) {
  const Program program = ParseProgram(
      "shared int x = 0;\nshared int y = 0;\nshared int b[2] = 0;\nlocal int l = 0;\n"
      "thread T * 2 {\n"
      "  a: atomic { x := x + 1; y := x + l; assert y != 3 };\n"
      "  b: if l == 0 then x := 5 else l := l - 1;\n"
      "  c: atomic { b[x % 2] := 1; x := 0 };\n"
      "  d: x := y;\n"
      "}\nabstraction p { predicate x == y; predicate l < x; predicate pc[1] == a; }\n",
      "wp.drb");
  std::vector<const Expr*> predicates;
  for (const Predicate& p : program.abstractions[0].predicates) predicates.push_back(p.expr.get());
  const auto wp = [&](std::uint32_t stmt, std::uint32_t actor) {
    const std::vector<std::string> got = Preconditions(program, predicates, stmt, actor);
    return std::set<std::string>(got.begin(), got.end());
  };
  using Texts = std::set<std::string>;
  // Sequential writes compose; the assertion is read where it is made.
  EXPECT_EQ(wp(0, 0), (Texts{"((x + 1) + l) != 3", "(x + 1) == ((x + 1) + l)", "l < (x + 1)"}));
  // Two paths (the else path writes only l); the location predicate is left out.
  EXPECT_EQ(wp(1, 0), (Texts{"5 == y", "l < 5", "(l - 1) < x"}));
  // Another thread's statement: its write of its own local is not the viewing thread's l.
  EXPECT_EQ(wp(1, 1), (Texts{"5 == y", "l < 5"}));
  // A write of an element picked at run time: the path is dropped.
  EXPECT_TRUE(wp(2, 0).empty());
  EXPECT_EQ(wp(3, 1), (Texts{"l < y"}));  // and `y == y` says nothing
}

}  // namespace
}  // namespace druba::predabs
