// Differential tests of druba's verdicts on random programs against brute force: safe sets equal
// the abstraction of the reachable states, violations and deadlocks are real, traces are short, the
// upper bound contains every reachable abstract state, values past the bound stop the run; and the
// paper's Ex. 12.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "abstraction/driver.h"
#include "abstraction/orbits.h"
#include "abstraction/upper_bound.h"
#include "check/drb_check.h"
#include "check/drb_explicit.h"
#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "interp/model.h"
#include "interp/program.h"
#include "predabs/brute_force.h"
#include "predabs/driver_setups.h"
#include "predabs/predicate_abstraction.h"
#include "predabs/report_words.h"
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

// Also the share of programs with no reachable failure that verify proves safe: with the
// paper's algorithm alone (--exhaust-share 0) and by default, where a failed closure test sends
// the exact search on to exhaustion (DESIGN.md section 9). The values stay small, so every
// program is finite and the default must prove at least 99% of them.
TEST(PredabsTest, SafeSetsEqualTheAbstractionOfTheReachableStates) {
  Generator gen(5);
  std::size_t safe = 0;
  std::size_t violations = 0;
  std::size_t no_failure = 0;
  std::size_t paper_safe = 0;
  for (int round = 0; round < testing::Sweep(240); ++round) {
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const std::string text =
        gen.Program(n, 3 + round % 2, round % 2 == 0, 1 + round % 3, round % 3 != 2);
    const Program program = ParseProgram(text, "random.drb");
    const auto [verdict, fails] = JudgeAgainstBruteForce(program, n, text);
    safe += verdict == Verdict::kSafe;
    violations += verdict == Verdict::kViolation;
    IntModel paper_model(program, n);
    const PredicateAbstraction paper_abs(paper_model, program.abstractions[0], 5000);
    PlateauDriver<IntModel, PredicateAbstraction> paper_run(paper_model, paper_abs);
    paper_run.SetExhaustBudget(0);
    const RunResult paper = paper_run.Verify();
    EXPECT_NE(paper.verdict, fails ? Verdict::kSafe : Verdict::kViolation) << text;
    if (!fails) {
      ++no_failure;
      paper_safe += paper.verdict == Verdict::kSafe;
    }
  }
  const auto programs = static_cast<std::size_t>(testing::Sweep(240));
  std::fprintf(stderr,
               "SafeSets: %zu safe (sets compared), %zu violations, %zu other of %zu; of the %zu "
               "without a reachable failure the paper's algorithm proves %zu (%.1f%%), with "
               "exhaustion %zu (%.1f%%)\n",
               safe, violations, programs - safe - violations, programs, no_failure, paper_safe,
               100.0 * static_cast<double>(paper_safe) / static_cast<double>(no_failure), safe,
               100.0 * static_cast<double>(safe) / static_cast<double>(no_failure));
  EXPECT_GT(safe, testing::AtLeastU(60));
  EXPECT_GT(violations, testing::AtLeastU(10));
  EXPECT_GE(static_cast<double>(safe), 0.99 * static_cast<double>(no_failure));
  EXPECT_LT(paper_safe, safe);  // exhaustion proves programs the paper's algorithm cannot
}

// Arrays (one entry per thread), loops with bodies and ifs with statement blocks against brute
// force: random programs with them, verified by default (exhaustion after a failed closure test); a
// safe set must be exactly the abstraction of the reachable states, a violation real, and every
// finite program decided.
TEST(PredabsTest, ArraysAndLoopsAgreeWithBruteForce) {
  Generator gen(23);
  gen.SetStructured(true);
  std::size_t safe = 0;
  std::size_t violations = 0;
  std::size_t loops = 0;
  std::size_t elements = 0;
  for (int round = 0; round < testing::Sweep(500); ++round) {
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const std::string text =
        gen.Program(n, 3 + round % 3, round % 2 == 0, 1 + round % 2, round % 3 != 2);
    loops += text.find("while") != std::string::npos && text.find("do {") != std::string::npos;
    // An element of a fixed-size array chosen at run time, or another thread's entry, in the code.
    const std::string code = text.substr(0, text.find("abstraction"));
    elements += code.find("b[(") != std::string::npos || code.find("c[(") != std::string::npos ||
                code.find("a[(y") != std::string::npos;
    const Program program = ParseProgram(text, "random.drb");
    const Verdict verdict = JudgeAgainstBruteForce(program, n, text).first;
    EXPECT_NE(verdict, Verdict::kUnknown) << text;  // every finite program decided
    safe += verdict == Verdict::kSafe;
    violations += verdict == Verdict::kViolation;
  }
  std::fprintf(stderr,
               "ArraysAndLoops: %zu safe, %zu violations, %zu with a loop body, %zu with an "
               "element chosen at run time\n",
               safe, violations, loops, elements);
  EXPECT_GT(elements, testing::AtLeastU(150));
  EXPECT_GT(safe, testing::AtLeastU(100));
  EXPECT_GT(violations, testing::AtLeastU(50));
  EXPECT_GT(loops, testing::AtLeastU(100));
}

// Deadlock (--deadlock) against brute force on random programs with blocking `assume`s: brute
// force lists the reachable states and finds those where no thread can move and some has not
// finished; druba's verify (deadlocks checked on every explored state, safe only by exhaustion)
// must report a violation exactly when an assertion fails or such a state is reachable, and
// every deadlock it reports must be one; the same with exhaustion over one state per orbit.
TEST(PredabsTest, DeadlocksAgreeWithBruteForce) {
  Generator gen(77);
  std::size_t deadlocks = 0;
  std::size_t free = 0;
  std::size_t solver_proofs = 0;
  std::size_t orbit_answers = 0;
  for (int round = 0; round < testing::Sweep(200); ++round) {
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const std::string text = gen.Program(n, 3 + round % 2, round % 3 == 0, 1, true);
    const Program program = ParseProgram(text, "random.drb");
    IntModel brute_model(program, n);
    bool deadlock = false;
    bool fails = false;
    for (const auto& state : Reachable(brute_model)) {
      bool moves = false;
      bool unfinished = false;
      for (std::uint32_t t = 0; t < n; ++t) {
        moves = moves || brute_model.CanMove(StateView(state), t);
        unfinished = unfinished || !brute_model.Finished(StateView(state), t);
      }
      deadlock = deadlock || (!moves && unfinished);
      fails = fails || brute_model.AnyThreadFailed(StateView(state));
    }
    IntModel model(program, n);
    const PredicateAbstraction abs(model, program.abstractions[0], 5000);
    PlateauDriver<IntModel, PredicateAbstraction> run(model, abs);
    run.CheckConcrete([&model](StateView state) { return model.Deadlocked(state); },
                      "deadlock freedom");
    const RunResult result = run.Verify();
    if (deadlock || fails) {
      EXPECT_EQ(result.verdict, Verdict::kViolation) << result.reason << "\n" << text;
    } else {
      EXPECT_EQ(result.verdict, Verdict::kSafe) << result.reason << "\n" << text;
      EXPECT_EQ(result.proof, Proof::kExhausted);
    }
    if (result.verdict == Verdict::kViolation && !fails) {
      const std::vector<TraceStep> trace = run.Trace(*result.violation_record);
      const StateView last(trace.back().state);
      for (std::uint32_t t = 0; t < n; ++t) EXPECT_FALSE(model.CanMove(last, t)) << text;
    }
    // The same with exhaustion over one state per orbit beside the Round-Robin search: deadlock
    // is checked on the states of each orbit it shows, and a deadlock it finds is one.
    IntModel orbit_model(program, n);
    const PredicateAbstraction orbit_abs(orbit_model, program.abstractions[0], 5000);
    PlateauDriver<IntModel, PredicateAbstraction> by_orbits(orbit_model, orbit_abs);
    by_orbits.CheckConcrete(
        [&orbit_model](StateView state) { return orbit_model.Deadlocked(state); },
        "deadlock freedom");
    if (const auto setup = MakeOrbitSetup(orbit_abs, orbit_model)) {
      by_orbits.ExhaustUpToSymmetry(*setup);
    }
    const RunResult orbit_result = by_orbits.Verify();
    EXPECT_EQ(orbit_result.verdict, deadlock || fails ? Verdict::kViolation : Verdict::kSafe)
        << orbit_result.reason << "\n"
        << text;
    orbit_answers += by_orbits.answered_up_to_symmetry();
    if (orbit_result.verdict == Verdict::kViolation && !fails) {
      const std::vector<TraceStep> trace = by_orbits.Trace(*orbit_result.violation_record);
      const StateView last(trace.back().state);
      for (std::uint32_t t = 0; t < n; ++t) EXPECT_FALSE(orbit_model.CanMove(last, t)) << text;
    }
    // The same without exhaustion: a safe then rests on the plateau proof and the solver's
    // deadlock freedom over the reached abstract set, and must still be right.
    IntModel solver_model(program, n);
    const PredicateAbstraction solver_abs(solver_model, program.abstractions[0], 5000);
    PlateauDriver<IntModel, PredicateAbstraction> by_solver(solver_model, solver_abs);
    by_solver.SetExhaustBudget(0);
    by_solver.CheckConcrete(
        [&solver_model](StateView state) { return solver_model.Deadlocked(state); },
        "deadlock freedom");
    by_solver.ProveConcreteBy(
        [&solver_abs](const StateStore& set) { return solver_abs.DeadlockFree(set); });
    const RunResult solved = by_solver.Verify();
    if (solved.verdict == Verdict::kSafe) {
      EXPECT_FALSE(deadlock || fails) << solved.reason << "\n" << text;
      ++solver_proofs;
    }
    (deadlock ? deadlocks : free) += 1;
  }
  std::fprintf(stderr,
               "Deadlocks: %zu programs with a reachable deadlock, %zu without; without "
               "exhaustion the solver proves %zu deadlock-free; the search over orbits answers "
               "%zu\n",
               deadlocks, free, solver_proofs, orbit_answers);
  EXPECT_GT(solver_proofs, testing::AtLeastU(5));
  EXPECT_GT(orbit_answers, testing::AtLeastU(20));
  EXPECT_GT(deadlocks, testing::AtLeastU(20));
  EXPECT_GT(free, testing::AtLeastU(20));
}

// The fewest statements of a run to a state where a thread failed, by breadth-first search.
std::optional<std::size_t> ShortestFailure(IntModel& model) {
  return BreadthFirst(model, [&model](const std::vector<Word>& state, std::size_t /*depth*/) {
    return model.AnyThreadFailed(StateView(state));
  });
}

// Short traces on random failing programs: the breadth-first trace has exactly the fewest
// statements brute force finds, the trace verify reports (breadth-first within a budget of the
// run's own successor calls, else the one found shortened) never more than twice that, and the
// shortened one alone at most 1.25 times it on average (geometric mean).
TEST(PredabsTest, TracesAreShort) {
  Generator gen(99);
  int compared = 0;
  double log_sum = 0;
  double worst = 1;
  for (int round = 0; round < testing::Sweep(200); ++round) {
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const std::string text = gen.Program(n, 3 + round % 2, true, 1, true);
    const Program program = ParseProgram(text, "random.drb");
    IntModel brute(program, n);
    const auto shortest = ShortestFailure(brute);
    if (!shortest || *shortest == 0) continue;
    IntModel model(program, n);
    const PredicateAbstraction abs(model, program.abstractions[0], 5000);
    PlateauDriver<IntModel, PredicateAbstraction> run(model, abs);
    const RunResult result = run.Verify();
    ASSERT_EQ(result.verdict, Verdict::kViolation) << result.reason << "\n" << text;
    ++compared;
    const std::vector<TraceStep> found = run.Trace(*result.violation_record);
    const std::vector<TraceStep> shorter = run.Shorten(found);
    EXPECT_EQ(StatementsIn(run.ShortestTrace()), *shortest) << text;
    std::vector<TraceStep> reported =
        run.ShortestTrace(std::max<std::uint64_t>(result.image_calls, std::uint64_t{1} << 16));
    if (reported.empty()) reported = shorter;
    EXPECT_LE(StatementsIn(reported), 2 * *shortest) << text;
    EXPECT_TRUE(model.AnyThreadFailed(StateView(reported.back().state)));
    const double ratio =
        static_cast<double>(StatementsIn(shorter)) / static_cast<double>(*shortest);
    log_sum += std::log(ratio);
    worst = std::max(worst, ratio);
  }
  const double geomean = std::exp(log_sum / std::max(1, compared));
  std::fprintf(stderr,
               "TracesAreShort: %d failing programs; shortened/shortest geometric mean %.3f, "
               "worst %.2f; reported = breadth-first shortest\n",
               compared, geomean, worst);
  EXPECT_GT(compared, testing::AtLeast(20));
  EXPECT_LE(geomean, 1.25);
}

// Exhaustion over one state per orbit of the thread symmetry (abstraction/orbits.h) against brute
// force: random symmetric programs at 2 to 4 threads, under the file's abstraction (thread 0's
// view: one state per thread of each orbit shown) and under one that tracks every thread's
// location (every state of an orbit shown). A safe set must be exactly the abstraction of the
// reachable states, a violation real, and every run to a failure the search over orbits finds
// (within the drive, or alone) a run of the program from its initial state (made concrete from
// the stored forms); most answers must come from the search over orbits.
TEST(PredabsTest, ExhaustionUpToSymmetryAgreesWithBruteForce) {
  Generator gen(41);
  std::size_t by_orbits = 0;
  std::size_t traces = 0;
  std::size_t every_state = 0;
  for (int round = 0; round < testing::Sweep(200); ++round) {
    const auto n = static_cast<std::uint32_t>(2 + round % 3);
    std::string text =
        gen.Program(n, 3 + round % 3, round % 2 == 0, 1 + round % 2, round % 3 != 2) +
        "abstraction every { track pc;";
    for (std::uint32_t t = 1; t < n; ++t) text += " track pc[" + std::to_string(t) + "];";
    text += " }\n";
    const Program program = ParseProgram(text, "random.drb");
    IntModel model(program, n);
    const PredicateAbstraction abs(model, program.abstractions[round / 3 % 2], 5000);
    const std::optional<OrbitSetup> setup = MakeOrbitSetup(abs, model);
    ASSERT_TRUE(setup) << text;
    every_state += setup->views == OrbitViews::kAll;
    PlateauDriver<IntModel, PredicateAbstraction> run(model, abs);
    run.ExhaustUpToSymmetry(*setup);
    const RunResult result = run.Verify();
    IntModel brute(program, n);
    const auto truth = AbstractSet(abs, Reachable(brute));
    const bool fails =
        std::any_of(truth.begin(), truth.end(), [](const auto& a) { return a.back() != 0; });
    EXPECT_NE(result.verdict, Verdict::kUnknown) << text;
    by_orbits += run.answered_up_to_symmetry();
    if (result.verdict == Verdict::kSafe) {
      EXPECT_FALSE(fails) << text;
      EXPECT_EQ(StoreSet(run.abstract_states()), truth) << text;
    }
    if (result.verdict == Verdict::kViolation) {
      EXPECT_TRUE(fails) << text;
    }
    if (!fails) continue;
    // A run to a failure: from the drive when the search over orbits answered it, and from that
    // search alone (the Round-Robin search usually finds a failure first).
    std::vector<std::vector<TraceStep>> traces_of;
    if (run.answered_up_to_symmetry() && result.violation_record) {
      traces_of.push_back(run.Trace(*result.violation_record));
    }
    AbstractTracker<PredicateAbstraction> tracker(abs);
    FreeSearch<IntModel, AbstractTracker<PredicateAbstraction>> alone(model, tracker);
    alone.ReduceBy(setup->symmetry, setup->views);
    alone.Run([](StateView /*state*/) { return std::string(); });
    ASSERT_TRUE(tracker.violation_record()) << text;
    traces_of.push_back(alone.Trace(*tracker.violation_record()));
    for (const std::vector<TraceStep>& trace : traces_of) {
      ++traces;
      IntModel walk(program, n);
      std::vector<Word> at;
      walk.ForEachInitial([&](StateView s) { at.assign(s.begin(), s.end()); });
      ASSERT_FALSE(trace.empty());
      EXPECT_EQ(trace.front().state, at) << text;
      for (const TraceStep& step : trace) {
        if (step.kind != TraceStep::Kind::kStep) continue;
        bool found = false;
        const std::vector<Word> from = at;
        walk.ForEachSuccessor(StateView(from), step.thread, [&](std::uint32_t action, StateView s) {
          found = found ||
                  (action == step.action && std::equal(s.begin(), s.end(), step.state.begin()));
        });
        ASSERT_TRUE(found) << text;
        at = step.state;
      }
      EXPECT_TRUE(walk.AnyThreadFailed(StateView(at))) << text;
    }
  }
  std::fprintf(stderr,
               "ExhaustionUpToSymmetry: %zu of %d answered by the search over orbits; %zu runs to "
               "a failure made concrete and replayed; %zu under an abstraction shown every "
               "state\n",
               by_orbits, testing::Sweep(200), traces, every_state);
  EXPECT_GT(by_orbits, testing::AtLeastU(100));
  EXPECT_GT(traces, testing::AtLeastU(16));
  EXPECT_GT(every_state, testing::AtLeastU(60));
}

// The sandwich proof's upper bound O for .drb programs (the all-SAT post of every statement,
// relative to O itself) contains the abstraction of every reachable state (brute force).
TEST(PredabsTest, UpperBoundContainsTheAbstractionOfTheReachableStates) {
  Generator gen(23);
  std::size_t checked = 0;
  std::size_t exact = 0;
  for (int round = 0; round < testing::Sweep(60); ++round) {
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const std::string text =
        gen.Program(n, 3 + round % 2, round % 2 == 0, 1 + round % 3, round % 3 != 2);
    const Program program = ParseProgram(text, "random.drb");
    IntModel model(program, n);
    const PredicateAbstraction abs(model, program.abstractions[0], 5000);
    auto initial = std::make_unique<StateStore>(abs.width());
    std::vector<Word> a(abs.width());
    model.ForEachInitial([&](StateView state) {
      abs.Abstract(state, std::span<Word>(a));
      initial->FindOrInsert(StateView(a));
    });
    auto search = MakeKleeneUpperBound(
        std::move(initial), [&abs](const StateStore& set) { return abs.MakeClosureOracle(set); },
        std::size_t{1} << 20);
    // Small budgets: the search resumes where it stopped.
    UpperBoundSearch::Status status = UpperBoundSearch::Status::kRunning;
    while (status == UpperBoundSearch::Status::kRunning) status = search->Advance(5, nullptr);
    if (status != UpperBoundSearch::Status::kDone) continue;  // an undecided query
    ++checked;
    const auto upper = StoreSet(search->set());
    IntModel brute_model(program, n);
    const auto truth = AbstractSet(abs, Reachable(brute_model));
    for (const auto& t : truth) {
      EXPECT_TRUE(upper.contains(t)) << "program " << round << ":\n" << text;
    }
    exact += upper == truth;
  }
  std::fprintf(stderr, "UpperBound: %zu programs checked, O exact on %zu\n", checked, exact);
  EXPECT_GT(checked, testing::AtLeastU(50));
  EXPECT_GT(exact, testing::AtLeastU(10));
}

// A value past kMaxValueBits: without limits the model throws; with them, the step yields no
// successor and the limits are stopped (so the run ends `unknown`, never `safe`).
TEST(PredabsTest, ValuesPastTheBoundStopTheRun) {
  const Program program =
      ParseProgram("shared nat s = 2; thread T { a: s := s * s; b: goto a; }", "sq.drb");
  IntModel model(program, 1);
  std::vector<Word> state;
  model.ForEachInitial([&](StateView s) { state.assign(s.begin(), s.end()); });
  const auto step = [&] {
    std::vector<Word> next;
    model.ForEachSuccessor(StateView(state), 0,
                           [&](std::uint32_t, StateView s) { next.assign(s.begin(), s.end()); });
    return next;
  };
  // 2 squared 12 times is 2^4096: the 12th assignment is the first too large to store.
  for (int i = 0; i < 11; ++i) {
    state = step();  // a: s := s * s
    state = step();  // b: goto a
  }
  EXPECT_THROW(step(), ValueOverflow);
  LimitWatch limits({});
  model.SetLimits(&limits);
  EXPECT_TRUE(step().empty()) << "no successor for the step";
  const std::optional<std::string> why = limits.Poll();
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("a value needs 4097 bits"), std::string::npos) << *why;

  // Through the driver: a bounded search that reaches the overflow is `unknown`, with the reason
  // (a `safe` by the plateau proof at r=2, before any value is large, stays right: no assertion).
  const ChosenAbstraction chosen =
      ChooseAbstraction(program, "", ParseThreadCounts("", program, 8));
  IntModel bounded(program, 1);
  LimitWatch run_limits({});
  bounded.SetLimits(&run_limits);
  const PredicateAbstraction abs(bounded, chosen.spec(), 5000);
  PlateauDriver<IntModel, PredicateAbstraction> run(bounded, abs, &run_limits);
  const RunResult result = run.Bounded({40, 0});
  EXPECT_EQ(result.verdict, Verdict::kUnknown);
  EXPECT_NE(result.reason.find("a value needs"), std::string::npos) << result.reason;
}

// Ex. 12 of the paper: R(3,0,1) is not contained in R(r,0,2) for any r tried.
TEST(PredabsTest, RoundRobinReachabilityIsNotMonotoneInTheThreadCount) {
  const Program program = ParseProgram(
      "shared bool s = false; shared bool t = false;\n"
      "thread T { 0: t := !t; 1: if t then goto 2 else end; 2: s := true; }\n"
      "abstraction shared_state { predicate s; predicate t; }\n",
      "ex12.drb");
  // Whether a state with s == true is in R(rounds, delays) of the n-thread program.
  const auto s_true = [&](std::uint32_t n, std::uint32_t rounds, std::uint32_t delays) {
    IntModel model(program, n);
    const PredicateAbstraction abs(model, program.abstractions[0], 5000);
    PlateauDriver<IntModel, PredicateAbstraction> run(model, abs);
    run.Bounded({rounds, delays});
    const auto set = StoreSet(run.abstract_states());
    return std::any_of(set.begin(), set.end(), [](const auto& a) { return a[0] == 1; });
  };
  EXPECT_TRUE(s_true(1, 3, 0));
  EXPECT_FALSE(s_true(1, 2, 0));
  for (std::uint32_t r = 1; r <= 40; ++r) EXPECT_FALSE(s_true(2, r, 0)) << r << " rounds";
  EXPECT_TRUE(s_true(2, 4, 1));  // one delay is enough for two threads
}

}  // namespace
}  // namespace druba::predabs
