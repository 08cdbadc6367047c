// The DrUBA driver on the paper's Ex. 8, and its verdicts on random programs checked against
// brute force: a `safe` set must be exactly the abstraction of the reachable states, and a
// violation's trace must replay on the plain semantics.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include <iostream>
#include <random>
#include <set>

#include "abstraction/driver.h"
#include "common/files.h"
#include "cpds/model.h"
#include "cpds/reader.h"
#include "cpds/top_k.h"
#include "explore/trace.h"
#include "support/reference.h"
#include "support/sweep.h"

namespace druba {
namespace {

using cpds::CpdsModel;
using cpds::TopKAbstraction;
using testing::AlphaOf;
using testing::PlainState;

// The visible target "shared state g, thread 0's top is `top0` (any top if nullopt), other stacks
// anything".
cpds::TargetPattern TargetOn(cpds::Shared g, std::size_t threads,
                             std::optional<cpds::Symbol> top0) {
  cpds::TargetPattern target{g, {}};
  for (std::size_t t = 0; t < threads; ++t) {
    target.stacks.push_back(t == 0 && top0 ? std::optional<cpds::Stack>(cpds::Stack{*top0})
                                           : std::nullopt);
  }
  return target;
}

PlainState ToPlain(const CpdsModel& model, const std::vector<Word>& words) {
  PlainState s{words[0], {}};
  for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
    s.stacks.push_back(model.stacks().Contents(words[1 + t]));
  }
  return s;
}

std::set<std::string> Described(const PlateauDriver<CpdsModel, TopKAbstraction>& run,
                                const TopKAbstraction& abs) {
  std::set<std::string> out;
  for (std::uint32_t id = 0; id < run.abstract_states().size(); ++id) {
    out.insert(abs.Describe(run.abstract_states().Get(id)));
  }
  return out;
}

TEST(DriverTest, Ex8FollowsThePapersPathAndProvesSafe) {
  const std::string dir = DRUBA_SOURCE_DIR "/models/";
  Warnings warnings;
  const cpds::Cpds c = cpds::ParsePds(ReadFile(dir + "ex8.pds"), "ex8.pds", &warnings);
  CpdsModel model(c, cpds::ParseInit(ReadFile(dir + "ex8.init"), "ex8.init", c));
  const TopKAbstraction abs(model, 1, std::nullopt);
  PlateauDriver run(model, abs);
  const RunResult result = run.Verify();
  EXPECT_EQ(result.verdict, Verdict::kSafe);
  EXPECT_EQ(run.abstract_states().size(), 3u);
  // (0,0) -> (1,0) new -> (2,0) plateau -> (2,1) -> (2,2) new -> (3,2) -> (3,3) -> (3,4) stop.
  EXPECT_EQ(result.bounds, (Bounds{3, 4}));
  EXPECT_EQ(result.plateau_start, (Bounds{2, 2}));
  std::vector<Bounds> path;
  for (const RaiseEvent& e : result.schedule) path.push_back(e.after);
  EXPECT_EQ(path,
            (std::vector<Bounds>{{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {3, 2}, {3, 3}, {3, 4}}));
}

// Replays a trace on the plain semantics: every slot is the next thread's, a step is one of its
// successors, a delay keeps the state.
void ExpectTraceReplays(const cpds::Cpds& c, const CpdsModel& model,
                        const std::vector<TraceStep>& trace) {
  const auto n = static_cast<std::uint32_t>(c.threads.size());
  std::uint32_t finder = n - 1;
  for (std::size_t i = 1; i < trace.size(); ++i) {
    const std::uint32_t thread = (finder + 1) % n;
    ASSERT_EQ(trace[i].thread, thread);
    const PlainState before = ToPlain(model, trace[i - 1].state);
    const PlainState after = ToPlain(model, trace[i].state);
    if (trace[i].kind == TraceStep::Kind::kDelay) {
      ASSERT_EQ(before, after);
    } else {
      const auto succ = testing::PlainSuccessors(c, before, thread);
      ASSERT_NE(std::find(succ.begin(), succ.end(), after), succ.end()) << "slot " << i;
    }
    finder = thread;
  }
}

// On random programs: `safe` sets equal alpha of the brute-force reachable set when it is finite,
// and otherwise contain every abstract state a larger bounded exploration finds; violations are
// real and their traces replay; no run says `safe` with a reachable target.
TEST(DriverTest, VerdictsAgreeWithBruteForceOnRandomPrograms) {
  std::mt19937 rng(99);
  int safe = 0, unknown = 0, violation = 0, exact_checks = 0, bounded_checks = 0;
  for (int i = 0; i < testing::Sweep(400); ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    auto [c, init] = testing::RandomCpds(rng, {3, 3, 3, 4, i % 2 == 0});
    const std::uint32_t k = 1 + static_cast<std::uint32_t>(i % 3 == 0);
    const auto free = testing::FreeReach(c, init, 3000);
    // Half the runs look for a random visible target.
    std::optional<cpds::TargetPattern> target;
    if (i % 2 == 1) {
      const auto g = std::uniform_int_distribution<cpds::Shared>(0, c.shared_states - 1)(rng);
      target = TargetOn(g, c.threads.size(), 0);
    }
    CpdsModel model(c, init);
    const TopKAbstraction abs(model, k, target);
    PlateauDriver run(model, abs);
    const RunResult result = run.Verify();
    bool target_reachable = false;
    std::set<std::string> alpha_free;
    if (free) {
      for (const PlainState& s : *free) {
        alpha_free.insert(AlphaOf(s, k));
        if (target && s.shared == *target->shared && !s.stacks[0].empty() &&
            s.stacks[0].back() == 0) {
          target_reachable = true;
        }
      }
    }
    if (result.verdict == Verdict::kViolation) {
      ++violation;
      ASSERT_TRUE(target.has_value());
      const auto trace = ReconstructTrace(run.explorer(), model, *result.violation_record);
      ExpectTraceReplays(c, model, trace);
      const StateView last(trace.back().state);
      ASSERT_EQ(last[0], *target->shared);
    } else if (result.verdict == Verdict::kSafe) {
      ++safe;
      ASSERT_FALSE(target_reachable);
      if (free && !target_reachable) {
        ++exact_checks;
        ASSERT_EQ(Described(run, abs), alpha_free);
      } else if (!free && result.bounds.rounds <= 8 && result.bounds.delays <= 6) {
        ++bounded_checks;
        const Bounds b = result.bounds;
        const testing::Def1Reference bigger(c, init, b.rounds + 2, b.delays + 2);
        const auto reported = Described(run, abs);
        for (const PlainState& s : bigger.Reach(b.rounds + 2, b.delays + 2)) {
          ASSERT_TRUE(reported.contains(AlphaOf(s, k))) << AlphaOf(s, k);
        }
      }
    } else {
      ++unknown;
      ASSERT_EQ(result.verdict, Verdict::kUnknown);
    }
  }
  // The test must exercise all three verdicts and the exact comparison.
  EXPECT_GT(safe, testing::AtLeast(100));
  EXPECT_GT(violation, testing::AtLeast(20));
  EXPECT_GT(exact_checks, testing::AtLeast(50));
  EXPECT_GT(bounded_checks, testing::AtLeast(5));
  std::cout << "safe " << safe << " (exact " << exact_checks << ", bounded " << bounded_checks
            << "), unknown " << unknown << ", violation " << violation << "\n";
  RecordProperty("safe", safe);
  RecordProperty("unknown", unknown);
  RecordProperty("violation", violation);
}

// druba, ai and naive: three computations of the same answer (DESIGN.md section 6).
TEST(DriverTest, ModesAgreeOnRandomPrograms) {
  std::mt19937 rng(4242);
  int differing_work = 0;
  for (int i = 0; i < testing::Sweep(300); ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    auto [c, init] = testing::RandomCpds(rng, {3, 3, 3, 4, i % 2 == 0});
    std::optional<cpds::TargetPattern> target;
    if (i % 3 == 0) {
      target = TargetOn(0, c.threads.size(), 1);
    }
    std::vector<std::set<std::string>> sets;
    std::vector<Verdict> verdicts;
    std::vector<std::uint64_t> calls;
    for (const Mode mode : {Mode::kDruba, Mode::kAi, Mode::kNaive}) {
      CpdsModel model(c, init);
      const TopKAbstraction abs(model, 1, target);
      PlateauDriver run(model, abs, nullptr, mode);
      run.SetExhaustBudget(0);  // the paper's algorithm alone, in every mode
      const RunResult result = run.Verify();
      verdicts.push_back(result.verdict);
      sets.push_back(Described(run, abs));
      calls.push_back(result.image_calls);
    }
    ASSERT_EQ(verdicts[0], verdicts[1]);
    ASSERT_EQ(verdicts[0], verdicts[2]);
    if (verdicts[0] == Verdict::kSafe) {
      ASSERT_EQ(sets[0], sets[1]);
      ASSERT_EQ(sets[0], sets[2]);
    }
    if (verdicts[0] != Verdict::kViolation) {
      ASSERT_LE(calls[0], calls[2]);
    }
    differing_work += calls[0] != calls[2];
  }
  EXPECT_GT(differing_work, testing::AtLeast(100));  // naive really recomputes
}

// Explicit search under free scheduling against DrUBA: where explicit finishes (a finite state
// space), druba must give the same verdict (going on to exhaustion where the closure test fails)
// and, when safe, the same abstract set; violations must be found by both. The paper's algorithm
// alone (no exhaustion) must never contradict it either.
TEST(DriverTest, ExplicitSearchAgreesWithDruba) {
  std::mt19937 rng(31337);
  int compared = 0;
  int safe = 0;
  int by_exhaustion = 0;
  int paper_safe = 0;
  for (int i = 0; i < testing::Sweep(1000); ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    auto [c, init] = testing::RandomCpds(rng, {3, 3, 3, 4, i % 2 == 0});
    std::optional<cpds::TargetPattern> target;
    if (i % 3 == 0) {
      target = TargetOn(1 % c.shared_states, c.threads.size(), std::nullopt);
    }
    CpdsModel druba_model(c, init);
    const std::uint32_t k = 1 + static_cast<std::uint32_t>(i % 2);
    const TopKAbstraction druba_abs(druba_model, k, target);
    PlateauDriver druba_run(druba_model, druba_abs);
    const RunResult druba = druba_run.Verify();
    CpdsModel paper_model(c, init);
    const TopKAbstraction paper_abs(paper_model, k, target);
    PlateauDriver paper_run(paper_model, paper_abs);
    paper_run.SetExhaustBudget(0);
    const RunResult paper = paper_run.Verify();

    CpdsModel model(c, init);
    const TopKAbstraction abs(model, k, target);
    PlateauDriver run(model, abs, nullptr, Mode::kExplicit);
    const RunResult exhaustive = run.Explicit([&](StateView s) -> std::string {
      for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
        if (model.stacks().DepthUpTo(s[1 + t], 8) > 8) return "deep";
      }
      return {};
    });
    if (exhaustive.verdict == Verdict::kUnknown) continue;
    ++compared;
    if (exhaustive.verdict == Verdict::kViolation) {
      ASSERT_EQ(druba.verdict, Verdict::kViolation);
      const auto trace = run.Trace(*exhaustive.violation_record);
      for (std::size_t slot = 1; slot < trace.size(); ++slot) {
        if (trace[slot].kind == TraceStep::Kind::kDelay) {
          ASSERT_EQ(trace[slot].state, trace[slot - 1].state);
          continue;
        }
        const auto succ =
            testing::PlainSuccessors(c, ToPlain(model, trace[slot - 1].state), trace[slot].thread);
        ASSERT_NE(std::find(succ.begin(), succ.end(), ToPlain(model, trace[slot].state)),
                  succ.end());
      }
    } else {
      ++safe;
      ASSERT_EQ(druba.verdict, Verdict::kSafe) << druba.reason;
      ASSERT_EQ(Described(druba_run, druba_abs), Described(run, abs));
      by_exhaustion += druba.proof == Proof::kExhausted;
      ASSERT_NE(paper.verdict, Verdict::kViolation);
      paper_safe += paper.verdict == Verdict::kSafe;
    }
  }
  EXPECT_GT(compared, testing::AtLeast(500));
  EXPECT_GT(by_exhaustion, testing::AtLeast(10));  // the closure test fails on some
  std::cout << "finite and safe: " << safe << "; the paper's algorithm proves " << paper_safe
            << ", with exhaustion " << safe << " (" << by_exhaustion << " by exhaustion)\n";
}

}  // namespace
}  // namespace druba

namespace druba {
namespace {

// The fewest statements of a run from `init` to a state with shared value `g`, by breadth-first
// search over plain states (nothing of druba's search); nothing when more than `cap` states are
// met first or none is reachable.
std::optional<std::size_t> BruteShortest(const cpds::Cpds& c, const cpds::InitialState& init,
                                         cpds::Shared g, std::size_t cap) {
  PlainState start{init.shared, init.stacks};
  if (start.shared == g) return 0;
  std::set<PlainState> seen{start};
  std::vector<PlainState> layer{start};
  for (std::size_t depth = 1; !layer.empty() && seen.size() <= cap; ++depth) {
    std::vector<PlainState> next;
    for (const PlainState& s : layer) {
      for (std::uint32_t t = 0; t < c.threads.size(); ++t) {
        for (const PlainState& succ : testing::PlainSuccessors(c, s, t)) {
          if (!seen.insert(succ).second) continue;
          if (succ.shared == g) return depth;
          next.push_back(succ);
        }
      }
    }
    layer = std::move(next);
  }
  return std::nullopt;
}

// A trace is a Round-Robin schedule of legal steps and delays ending in the target.
void ExpectValidTrace(const cpds::Cpds& c, const CpdsModel& model,
                      const std::vector<TraceStep>& trace, cpds::Shared g) {
  ASSERT_FALSE(trace.empty());
  const auto n = static_cast<std::uint32_t>(c.threads.size());
  for (std::size_t i = 1; i < trace.size(); ++i) {
    ASSERT_EQ(trace[i].thread, (trace[i - 1].thread + 1) % n);
    const PlainState before = ToPlain(model, trace[i - 1].state);
    const PlainState after = ToPlain(model, trace[i].state);
    if (trace[i].kind == TraceStep::Kind::kDelay) {
      ASSERT_EQ(before, after);
      continue;
    }
    const auto succ = testing::PlainSuccessors(c, before, trace[i].thread);
    ASSERT_NE(std::find(succ.begin(), succ.end(), after), succ.end());
  }
  ASSERT_EQ(ToPlain(model, trace.back().state).shared, g);
}

// Traces are short: on random programs with a reachable target, the breadth-first trace
// (--shortest, and the default when it fits the budget) has exactly the fewest statements brute
// force finds; the trace found, shortened by dropping statements (the default's fallback), is on
// average (geometric mean) at most 1.25 times it, and the reported is never more than twice;
// every trace is a valid schedule ending in the target.
TEST(DriverTest, TracesAreShortAndTheShortestIsShortest) {
  std::mt19937 rng(777);
  int compared = 0;
  double log_sum = 0;
  double worst = 1;
  double reported_worst = 1;
  std::size_t found_total = 0;
  std::size_t shortened_total = 0;
  for (int i = 0; i < testing::Sweep(600); ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    auto [c, init] = testing::RandomCpds(rng, {4, 4, 3, 5, i % 2 == 0});
    if (c.shared_states < 2) continue;
    const cpds::Shared g = 1 + static_cast<cpds::Shared>(i) % (c.shared_states - 1);
    const auto brute = BruteShortest(c, init, g, 20000);
    if (!brute || *brute == 0) continue;
    CpdsModel model(c, init);
    const TopKAbstraction abs(model, 1, TargetOn(g, c.threads.size(), std::nullopt));
    PlateauDriver run(model, abs);
    run.SetExhaustBudget(0);
    const RunResult result = run.Verify();
    if (result.verdict != Verdict::kViolation) continue;
    ++compared;
    const std::vector<TraceStep> found = run.Trace(*result.violation_record);
    const std::vector<TraceStep> shorter = run.Shorten(found);
    const std::vector<TraceStep> shortest = run.ShortestTrace();
    // What verify reports by default (run/run_count.h): the breadth-first trace within a budget
    // of the run's own successor calls, else the shortened one.
    std::vector<TraceStep> reported =
        run.ShortestTrace(std::max<std::uint64_t>(result.image_calls, std::uint64_t{1} << 16));
    if (reported.empty()) reported = shorter;
    ExpectValidTrace(c, model, reported, g);
    reported_worst = std::max(
        reported_worst, static_cast<double>(StatementsIn(reported)) / static_cast<double>(*brute));
    ExpectValidTrace(c, model, shorter, g);
    ExpectValidTrace(c, model, shortest, g);
    ASSERT_EQ(StatementsIn(shortest), *brute);
    ASSERT_LE(StatementsIn(shorter), StatementsIn(found));
    const double ratio = static_cast<double>(StatementsIn(shorter)) / static_cast<double>(*brute);
    log_sum += std::log(ratio);
    worst = std::max(worst, ratio);
    found_total += StatementsIn(found);
    shortened_total += StatementsIn(shorter);
  }
  const double geomean = std::exp(log_sum / std::max(1, compared));
  std::cout << compared << " violations: shortened/shortest geometric mean " << geomean
            << ", worst " << worst << "; statements found " << found_total << ", shortened "
            << shortened_total << "; reported/shortest worst " << reported_worst << "\n";
  EXPECT_GT(compared, testing::AtLeast(50));
  EXPECT_LE(geomean, 1.25);
  EXPECT_LE(reported_worst, 2.0);
}

}  // namespace
}  // namespace druba

namespace druba {
namespace {

// Deadlock (--deadlock) against brute force: on random programs whose reachable states brute
// force can list, verify (and explicit search) report a deadlock exactly when some reachable
// state has no thread that can move and a thread with a non-empty stack; a reported deadlock's
// trace ends in such a state; a safe verdict's abstract set is the brute-force one.
TEST(DriverTest, DeadlocksAgreeWithBruteForce) {
  std::mt19937 rng(2024);
  int deadlocked = 0;
  int free_of_deadlock = 0;
  for (int i = 0; i < testing::Sweep(600); ++i) {
    SCOPED_TRACE("program " + std::to_string(i));
    auto [c, init] = testing::RandomCpds(rng, {3, 3, 3, 3, i % 2 == 0});
    const auto reach = testing::FreeReach(c, init, 3000);
    if (!reach) continue;
    bool brute = false;
    for (const PlainState& s : *reach) {
      bool unfinished = false;
      for (const cpds::Stack& stack : s.stacks) unfinished = unfinished || !stack.empty();
      bool blocked = true;  // no rule matches any thread's shared state and top
      for (std::uint32_t t = 0; t < c.threads.size() && blocked; ++t) {
        if (s.stacks[t].empty()) continue;
        const cpds::Symbol top = s.stacks[t].back();
        for (const cpds::Rule& r : c.threads[t].rules) {
          if (r.shared == s.shared && r.top == top) blocked = false;
        }
      }
      brute = brute || (blocked && unfinished);
    }
    for (const Mode mode : {Mode::kDruba, Mode::kExplicit}) {
      CpdsModel model(c, init);
      TopKAbstraction abs(model, 1 + static_cast<std::uint32_t>(i % 2), std::nullopt);
      abs.SetDeadlock(true);
      PlateauDriver run(model, abs, nullptr, mode);
      const RunResult result = mode == Mode::kExplicit
                                   ? run.Explicit([](StateView) { return std::string(); })
                                   : run.Verify();
      if (brute) {
        ASSERT_EQ(result.verdict, Verdict::kViolation) << result.reason;
        const std::vector<TraceStep> trace = run.Trace(*result.violation_record);
        std::vector<Word> a(abs.width());
        abs.Abstract(StateView(trace.back().state), std::span<Word>(a));
        ASSERT_TRUE(abs.Deadlocked(StateView(a)));
      } else {
        ASSERT_EQ(result.verdict, Verdict::kSafe) << result.reason;
      }
    }
    (brute ? deadlocked : free_of_deadlock) += 1;
  }
  std::cout << deadlocked << " programs with a reachable deadlock, " << free_of_deadlock
            << " without\n";
  EXPECT_GT(deadlocked, testing::AtLeast(30));
  EXPECT_GT(free_of_deadlock, testing::AtLeast(30));
}

}  // namespace
}  // namespace druba
