// Brute force for the .drb tests: every reachable state under free scheduling, abstract sets,
// store copies, a symbolic state pinned to a concrete one, and a verdict judged against them.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "abstraction/driver.h"
#include "explore/free_search.h"
#include "explore/state_store.h"
#include "interp/model.h"
#include "predabs/predicate_abstraction.h"
#include "smt/encoder.h"
#include "support/random_drb.h"

namespace druba::predabs {

using States = std::vector<std::vector<Word>>;

// Every state reachable under free scheduling.
inline States Reachable(IntModel& model) {
  States out;
  BreadthFirst(model, [&](const std::vector<Word>& state, std::size_t /*depth*/) {
    out.push_back(state);
    return false;
  });
  return out;
}

inline std::set<std::vector<Word>> AbstractSet(const PredicateAbstraction& abs,
                                               const States& states) {
  std::set<std::vector<Word>> out;
  std::vector<Word> a(abs.width());
  for (const auto& s : states) {
    abs.Abstract(StateView(s), std::span<Word>(a));
    out.insert(a);
  }
  return out;
}

inline std::set<std::vector<Word>> StoreSet(const StateStore& store) {
  std::set<std::vector<Word>> out;
  for (std::uint32_t id = 0; id < store.size(); ++id) {
    out.emplace(store.Get(id).begin(), store.Get(id).end());
  }
  return out;
}

// A copy of `store` (without state `drop`, when given).
inline std::unique_ptr<StateStore> CopyStore(const StateStore& store,
                                             std::optional<std::uint32_t> drop = std::nullopt) {
  auto out = std::make_unique<StateStore>(store.width());
  for (std::uint32_t id = 0; id < store.size(); ++id) {
    if (id != drop) out->FindOrInsert(store.Get(id));
  }
  return out;
}

// Pins a symbolic state of a fixed-count program to a concrete one.
inline Term Pin(Encoder& enc, const SymState& sym, const IntModel& model, StateView state) {
  Solver& s = enc.solver();
  std::vector<Term> parts;
  const Program& p = model.program();
  for (std::size_t v = 0; v < p.shared.size(); ++v) {
    parts.push_back(s.Eq(sym.shared[v], s.IntValue(model.values().Decode(state[v]))));
  }
  for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
    for (std::uint32_t v = 0; v < p.locals.size(); ++v) {
      parts.push_back(s.Eq(s.Select(sym.locals[v], s.Num(t)),
                           s.IntValue(model.values().Decode(state[model.LocalSlot(t, v)]))));
    }
    parts.push_back(s.Eq(s.Select(sym.pc, s.Num(t)), s.Num(state[model.PcSlot(t)])));
    for (std::uint32_t v = 0; v < p.pairs.size(); ++v) {
      for (std::uint32_t c = 0; c < model.num_threads(); ++c) {
        parts.push_back(s.Eq(s.Select2(sym.pairs[v], s.Num(t), s.Num(c)),
                             s.IntValue(model.values().Decode(state[model.PairSlot(t, v, c)]))));
      }
    }
  }
  return s.And(parts);
}

// Every successor the interpreter gives `thread` from `state` satisfies the encoding's step
// relation and nothing else does (each query pushed and popped on the encoder's solver); returns
// how many of them go to the error location.
inline std::size_t CompareStep(Encoder& enc, const ThreadCount& count, IntModel& model,
                               const std::vector<Word>& state, std::uint32_t thread) {
  Solver& s = enc.solver();
  const Program& program = model.program();
  const Word pc = state[model.PcSlot(thread)];
  const SymState pre = enc.FreshState("pre", count);
  const SymState post = enc.FreshState("post", count);
  const Term pinned = Pin(enc, pre, model, StateView(state));
  const Term step = enc.Step(pc, s.Num(thread), pre, post, count);
  std::vector<Term> outcomes;
  std::size_t failures = 0;
  model.ForEachSuccessor(StateView(state), thread, [&](std::uint32_t action, StateView next) {
    EXPECT_EQ(action, pc);
    failures += next[model.PcSlot(thread)] == program.error_pc ? 1 : 0;
    const Term is = Pin(enc, post, model, next);
    outcomes.push_back(is);
    s.Push();
    s.Assert(s.And({pinned, step, is}));
    EXPECT_EQ(s.Check(), SatResult::kSat)
        << program.statements[pc].text << " to " << model.DescribeState(next);
    s.Pop();
  });
  s.Push();
  s.Assert(s.And({pinned, step, s.Not(s.Or(outcomes))}));
  EXPECT_EQ(s.Check(), SatResult::kUnsat)
      << program.statements[pc].text << " from " << model.DescribeState(StateView(state));
  s.Pop();
  return failures;
}

// Calls `step(enc, count, model, state, thread)` for every thread that has not finished in each
// of `samples` reachable states (drawn with `rng`) of each of `rounds` random programs of `gen`
// (1 to 3 threads, 4 statements, assertions), the encoding at the program's fixed count.
template <class Step>
void ForSampledSteps(Generator& gen, int rounds, int samples, std::mt19937& rng, Step&& step) {
  for (int round = 0; round < rounds; ++round) {
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const Program program = ParseProgram(gen.Program(n, 4, true, 1, true), "random.drb");
    IntModel model(program, n);
    const States reachable = Reachable(model);
    const auto solver = MakeZ3Solver(5000);
    Encoder enc(program, *solver);
    const ThreadCount count = enc.Fixed(n);
    for (int sample = 0; sample < samples; ++sample) {
      const auto& state =
          reachable[std::uniform_int_distribution<std::size_t>(0, reachable.size() - 1)(rng)];
      for (std::uint32_t t = 0; t < n; ++t) {
        if (state[model.PcSlot(t)] < program.statements.size()) step(enc, count, model, state, t);
      }
    }
  }
}

// Verifies `program` with `n` threads (the default: exhaustion after a failed closure test) and
// holds the answer against brute force: a safe set is exactly the abstraction of the reachable
// states, a violation is real. Returns the verdict and whether a failure is reachable.
inline std::pair<Verdict, bool> JudgeAgainstBruteForce(const Program& program, std::uint32_t n,
                                                       const std::string& text) {
  IntModel model(program, n);
  const PredicateAbstraction abs(model, program.abstractions[0], 5000);
  PlateauDriver<IntModel, PredicateAbstraction> run(model, abs);
  const RunResult result = run.Verify();
  IntModel brute_model(program, n);
  const auto truth = AbstractSet(abs, Reachable(brute_model));
  const bool fails =
      std::any_of(truth.begin(), truth.end(), [](const auto& a) { return a.back() != 0; });
  if (result.verdict == Verdict::kSafe) {
    EXPECT_FALSE(fails) << text;
    EXPECT_EQ(StoreSet(run.abstract_states()), truth) << text;
  }
  if (result.verdict == Verdict::kViolation) {
    EXPECT_TRUE(fails) << text;
  }
  return {result.verdict, fails};
}

}  // namespace druba::predabs
