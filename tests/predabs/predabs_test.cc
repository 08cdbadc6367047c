// Differential tests of the integer-program half: the solver encoding against the interpreter,
// the solver's respect verdicts against brute force over small values, druba's `safe` sets
// against the abstraction of a brute-force reachable set (for one thread count and for every
// count), and the paper's Ex. 12.
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
#include "abstraction/upper_bound.h"
#include "check/drb_check.h"
#include "check/drb_explicit.h"
#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "predabs/certificate.h"
#include "predabs/describer.h"
#include "predabs/encoder.h"
#include "predabs/model.h"
#include "predabs/parser.h"
#include "predabs/predicate_abstraction.h"
#include "predabs/refine.h"
#include "predabs/run_hooks.h"
#include "predabs/solver.h"
#include "predabs/strategy.h"
#include "predabs/thread_counts.h"
#include "support/random_drb.h"
#include "support/sweep.h"

namespace druba::predabs {
namespace {

using States = std::vector<std::vector<Word>>;

// Every state reachable under free scheduling.
States Reachable(IntModel& model) {
  States out;
  BreadthFirst(model, [&](const std::vector<Word>& state, std::size_t /*depth*/) {
    out.push_back(state);
    return false;
  });
  return out;
}

std::set<std::vector<Word>> AbstractSet(const PredicateAbstraction& abs, const States& states) {
  std::set<std::vector<Word>> out;
  std::vector<Word> a(abs.width());
  for (const auto& s : states) {
    abs.Abstract(StateView(s), std::span<Word>(a));
    out.insert(a);
  }
  return out;
}

std::set<std::vector<Word>> StoreSet(const StateStore& store) {
  std::set<std::vector<Word>> out;
  for (std::uint32_t id = 0; id < store.size(); ++id) {
    out.emplace(store.Get(id).begin(), store.Get(id).end());
  }
  return out;
}

// A copy of `store` (without state `drop`, when given).
std::unique_ptr<StateStore> CopyStore(const StateStore& store,
                                      std::optional<std::uint32_t> drop = std::nullopt) {
  auto out = std::make_unique<StateStore>(store.width());
  for (std::uint32_t id = 0; id < store.size(); ++id) {
    if (id != drop) out->FindOrInsert(store.Get(id));
  }
  return out;
}

// Pins a symbolic state of a fixed-count program to a concrete one.
Term Pin(Encoder& enc, const SymState& sym, const IntModel& model, StateView state) {
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
  }
  return s.And(parts);
}

TEST(PredabsTest, EncoderAgreesWithTheInterpreter) {
  Generator gen(7, /*division=*/true);
  std::mt19937 rng(11);
  std::size_t compared = 0;
  std::size_t enabled = 0;
  std::size_t failures = 0;  // steps into the error location (assertions, division by zero)
  for (int round = 0; round < testing::Sweep(120); ++round) {
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const Program program = ParseProgram(gen.Program(n, 4, true, 1, true), "random.drb");
    IntModel model(program, n);
    const States reachable = Reachable(model);
    auto solver = MakeZ3Solver(5000);
    Encoder enc(program, *solver);
    const ThreadCount count = enc.Fixed(n);
    for (int sample = 0; sample < 6; ++sample) {
      const auto& state =
          reachable[std::uniform_int_distribution<std::size_t>(0, reachable.size() - 1)(rng)];
      for (std::uint32_t t = 0; t < n; ++t) {
        const Word pc = state[model.PcSlot(t)];
        if (pc >= program.statements.size()) continue;
        States expected;
        model.ForEachSuccessor(StateView(state), t, [&](std::uint32_t action, StateView s) {
          EXPECT_EQ(action, pc);
          if (s[model.PcSlot(t)] == program.error_pc) ++failures;
          expected.emplace_back(s.begin(), s.end());
        });
        const SymState pre = enc.FreshState("pre", count);
        const SymState post = enc.FreshState("post", count);
        const Term pinned = Pin(enc, pre, model, StateView(state));
        // Enabledness.
        solver->Push();
        solver->Assert(pinned);
        solver->Assert(enc.Enabled(pc, solver->Num(t), pre, count));
        EXPECT_EQ(solver->Check(), expected.empty() ? SatResult::kUnsat : SatResult::kSat)
            << program.statements[pc].text;
        solver->Pop();
        // Every interpreter successor satisfies the step relation, and nothing else does.
        const Term step = enc.Step(pc, solver->Num(t), pre, post, count);
        std::vector<Term> outcomes;
        for (const auto& succ : expected) {
          const Term is = Pin(enc, post, model, StateView(succ));
          outcomes.push_back(is);
          solver->Push();
          solver->Assert(pinned);
          solver->Assert(step);
          solver->Assert(is);
          EXPECT_EQ(solver->Check(), SatResult::kSat)
              << program.statements[pc].text << " to " << model.DescribeState(StateView(succ));
          solver->Pop();
        }
        solver->Push();
        solver->Assert(pinned);
        solver->Assert(step);
        solver->Assert(solver->Not(solver->Or(outcomes)));
        EXPECT_EQ(solver->Check(), SatResult::kUnsat)
            << program.statements[pc].text << " from " << model.DescribeState(StateView(state));
        solver->Pop();
        ++compared;
        if (!expected.empty()) ++enabled;
      }
    }
  }
  std::fprintf(stderr, "Encoder: %zu steps compared, %zu enabled, %zu into the error location\n",
               compared, enabled, failures);
  EXPECT_GT(compared, testing::AtLeastU(500));
  EXPECT_GT(enabled, testing::AtLeastU(250));
  EXPECT_GT(failures, testing::AtLeastU(40));
}

// All states of a 2-thread program with values in {0, 1, 2} and locations in range.
States SmallStates(const IntModel& model) {
  const Program& p = model.program();
  const std::uint32_t locations = p.templates[0].size + 1;
  const Word end = p.templates[0].end_pc;
  States out;
  std::vector<Word> s(model.state_width());
  const std::size_t slots = model.state_width();
  std::vector<std::uint32_t> digit(slots, 0);
  for (;;) {
    for (std::size_t i = 0; i < slots; ++i) s[i] = digit[i];
    bool valid = true;
    std::vector<Word> state(slots);
    for (std::size_t v = 0; v < p.shared.size(); ++v) state[v] = static_cast<Word>(digit[v]) << 1;
    for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
      const std::size_t pc = model.PcSlot(t);
      state[pc] = digit[pc] + 1 == locations ? end : digit[pc];
      for (std::uint32_t v = 0; v < p.locals.size(); ++v) {
        const std::size_t slot = model.LocalSlot(t, v);
        state[slot] = static_cast<Word>(digit[slot]) << 1;
      }
    }
    if (valid) out.push_back(state);
    std::size_t i = 0;
    for (; i < slots; ++i) {
      const bool is_pc = i >= p.shared.size() && (i - p.shared.size()) % (1 + p.locals.size()) == 0;
      const std::uint32_t base = is_pc ? locations : 3;
      if (++digit[i] < base) break;
      digit[i] = 0;
    }
    if (i == slots) return out;
  }
}

TEST(PredabsTest, RespectAgreesWithBruteForceOverSmallValues) {
  Generator gen(23);
  std::size_t respects = 0;
  std::size_t brute_disrespects = 0;
  for (int round = 0; round < testing::Sweep(80); ++round) {
    const Program program = ParseProgram(gen.Program(2, 3, false, 2, round % 2 == 0), "r.drb");
    IntModel model(program, 2);
    const PredicateAbstraction abs(model, program.abstractions[0], 5000);
    const States states = SmallStates(model);
    std::vector<Word> a(abs.width());
    std::vector<Word> b(abs.width());
    for (const ActionClass& c : abs.Classes()) {
      const std::uint32_t thread = c.other ? 1 : c.thread;
      // Abstraction of the state -> abstractions of its total successors under c.
      std::map<std::vector<Word>, std::set<std::vector<Word>>> image;
      for (const auto& s : states) {
        abs.Abstract(StateView(s), std::span<Word>(a));
        auto& out = image[a];
        bool any = false;
        if (s[model.PcSlot(thread)] == c.stmt) {
          model.ForEachSuccessor(StateView(s), thread, [&](std::uint32_t, StateView succ) {
            any = true;
            abs.Abstract(succ, std::span<Word>(b));
            out.insert(b);
          });
        }
        if (!any) out.insert(a);
      }
      const bool brute_respects = std::all_of(image.begin(), image.end(),
                                              [](const auto& kv) { return kv.second.size() == 1; });
      if (c.respects) {
        ++respects;
        EXPECT_TRUE(brute_respects)
            << "the solver says statement " << program.statements[c.stmt].text << " by thread "
            << thread << " respects the abstraction, brute force disagrees";
      }
      if (!brute_respects) {
        ++brute_disrespects;
        EXPECT_FALSE(c.respects);
      }
    }
  }
  std::fprintf(stderr,
               "Respect: %zu solver-respecting actions confirmed, %zu brute-force "
               "disrespects matched\n",
               respects, brute_disrespects);
  EXPECT_GT(respects, testing::AtLeastU(40));
  EXPECT_GT(brute_disrespects, testing::AtLeastU(40));
}

// Verifies `program` with `n` threads (the default: exhaustion after a failed closure test) and
// holds the answer against brute force: a safe set is exactly the abstraction of the reachable
// states, a violation is real. Returns the verdict and whether a failure is reachable.
std::pair<Verdict, bool> JudgeAgainstBruteForce(const Program& program, std::uint32_t n,
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

// The certificate checker's interpreter (src/check/drb_explicit.cc) against this model's
// semantics: the reachable states without a failed thread, written as an explicit certificate,
// must be valid exactly when no failure is reachable (else the checker must find the failing
// step), and with any one state but the initial dropped the checker must find it missing.
TEST(PredabsTest, ExplicitCertificatesAgreeWithTheModel) {
  Generator gen(29);
  std::size_t valid = 0;
  std::size_t failing = 0;
  for (int round = 0; round < testing::Sweep(300); ++round) {
    gen.SetStructured(round % 2 == 0);
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const std::string text =
        gen.Program(n, 3 + round % 3, round % 2 == 0, 1 + round % 2, round % 3 != 2);
    const Program program = ParseProgram(text, "random.drb");
    IntModel model(program, n);
    States safe_part;
    bool fails = false;
    for (const auto& s : Reachable(model)) {
      const bool failed = model.AnyThreadFailed(StateView(s));
      fails = fails || failed;
      if (!failed) safe_part.push_back(s);
    }
    const auto certificate = [&](std::size_t drop) {
      std::string rows;
      for (std::size_t i = 0; i < safe_part.size(); ++i) {
        if (i == drop) continue;
        rows += rows.empty() ? "[" : ",[";
        for (std::size_t w = 0; w < safe_part[i].size(); ++w) {
          const bool pc = w >= program.shared.size() &&
                          (w - program.shared.size()) % (1 + program.locals.size()) == 0;
          rows += (w == 0 ? "" : ",") + (pc ? std::to_string(safe_part[i][w])
                                            : model.values().Decode(safe_part[i][w]).str());
        }
        rows += "]";
      }
      const std::string json =
          R"({"druba_certificate": 1, "kind": "drb explicit", "digest": "d", "proof": "exhausted", )"
          R"("threads": )" +
          std::to_string(n) + R"(, "deadlock": false, "states": [)" + rows + "]}";
      return check::CheckDrbExplicitCertificate(ParseJson(json, "c.json"), "d", text, "random.drb");
    };
    const check::CheckResult whole = certificate(safe_part.size());
    EXPECT_EQ(whole.valid, !fails) << text << whole.failed << ": " << whole.example;
    if (fails) {
      EXPECT_EQ(whole.failed, "closure") << text << whole.example;
    }
    valid += whole.valid;
    failing += fails;
    // BFS order: state 0 is the initial one.
    if (safe_part.size() > 1) {
      const check::CheckResult dropped = certificate(1 + round % (safe_part.size() - 1));
      EXPECT_FALSE(dropped.valid) << text;
      EXPECT_EQ(dropped.failed, "closure") << text << dropped.example;
    }
  }
  std::fprintf(stderr, "ExplicitCertificates: %zu valid, %zu with a reachable failure\n", valid,
               failing);
  EXPECT_GT(valid, testing::AtLeastU(60));
  EXPECT_GT(failing, testing::AtLeastU(30));
}

// The certificate of every plateau or sandwich proof of a random program is checked valid by the
// independent checker (src/check/drb_check.cc, its own SMT encoding), and with one abstract state
// dropped it is not: druba's encoder and the checker's agree on the programs druba proves.
TEST(PredabsTest, CertificatesOfRandomProofsAreValid) {
  Generator gen(31);
  std::size_t checked = 0;
  for (int round = 0; round < testing::Sweep(80); ++round) {
    gen.SetStructured(round % 2 == 0);
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const std::string text =
        gen.Program(n, 3 + round % 2, round % 2 == 0, 1 + round % 3, round % 3 != 2);
    const Program program = ParseProgram(text, "random.drb");
    IntModel model(program, n);
    const PredicateAbstraction abs(model, program.abstractions[0], 5000);
    PlateauDriver<IntModel, PredicateAbstraction> run(model, abs);
    const RunResult result = run.Verify();
    if (result.verdict != Verdict::kSafe || result.proof == Proof::kExhausted) continue;
    const StateStore& set = run.abstract_states();
    const auto check = [&](const StateStore& claimed) {
      const std::string certificate = PredicatesCertificate(
          {"d", n, false, false, "plateau", &program, &program.abstractions[0], &claimed});
      return check::CheckDrbCertificate(ParseJson(certificate, "c.json"), "d", text, "random.drb");
    };
    const check::CheckResult whole = check(set);
    EXPECT_TRUE(whole.valid) << text << whole.failed << ": " << whole.example;
    ++checked;
    // Dropping a state other than the initial one (the first found) breaks closure.
    if (set.size() > 1) {
      const check::CheckResult dropped =
          check(*CopyStore(set, static_cast<std::uint32_t>(1 + round % (set.size() - 1))));
      EXPECT_FALSE(dropped.valid) << text;
      EXPECT_EQ(dropped.failed, "closure") << text << dropped.example;
    }
  }
  std::fprintf(stderr, "CertificatesOfRandomProofs: %zu proofs checked\n", checked);
  EXPECT_GT(checked, testing::AtLeastU(15));
}

// Refinement against brute force: random finite programs verified with the paper's algorithm
// alone (no exact search after a failed closure test), refined at each closure break as
// `druba verify` refines. Every `safe` must have no reachable failure and exactly the abstraction
// of the reachable states as its set (under the refined abstraction); every violation must be
// real. Reports the share of programs without a reachable failure that refinement proves where
// the given abstraction alone did not.
TEST(PredabsTest, RefinementAgreesWithBruteForce) {
  Generator gen(19);
  std::size_t given = 0;
  std::size_t refined = 0;
  std::size_t no_failure = 0;
  std::size_t added = 0;
  for (int round = 0; round < testing::Sweep(40); ++round) {
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const std::string text = gen.Program(n, 3 + round % 2, round % 2 == 0, round % 2, true);
    const Program program = ParseProgram(text, "random.drb");
    IntModel brute_model(program, n);
    const States reachable = Reachable(brute_model);
    const bool fails = std::any_of(reachable.begin(), reachable.end(), [&](const auto& s) {
      return brute_model.AnyThreadFailed(StateView(s));
    });
    // The loop `druba verify` runs (predabs/strategy.h), each round the paper's algorithm alone.
    run::RunOptions options;
    options.exhaust_share = 0;
    DrbOptions drb;
    drb.solver_timeout_ms = 5000;
    const ThreadCounts threads = ParseThreadCounts(std::to_string(n), program, 8);
    const ChosenAbstraction chosen = ChooseAbstraction(program, "", threads);
    LimitWatch limits({0, 0}, nullptr);
    std::optional<Refiner> refiner;
    bool by_refinement = false;
    const Round last = Verify({options, drb, text, ""}, program, chosen, threads, limits, {},
                              refiner, &by_refinement);
    const Verdict verdict = last.counts.verdict;
    const Program& final_program = by_refinement ? refiner->program() : program;
    const AbstractionSpec& spec = by_refinement ? refiner->spec() : chosen.spec();
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

// Deadlock (--deadlock) against brute force on random programs with blocking `assume`s: brute
// force lists the reachable states and finds those where no thread can move and some has not
// finished; druba's verify (deadlocks checked on every explored state, safe only by exhaustion)
// must report a violation exactly when an assertion fails or such a state is reachable, and
// every deadlock it reports must be one.
TEST(PredabsTest, DeadlocksAgreeWithBruteForce) {
  Generator gen(77);
  std::size_t deadlocks = 0;
  std::size_t free = 0;
  std::size_t solver_proofs = 0;
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
               "exhaustion the solver proves %zu deadlock-free\n",
               deadlocks, free, solver_proofs);
  EXPECT_GT(solver_proofs, testing::AtLeastU(5));
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

// The outer loop of RunThreadCounts over 2, 3, 4 threads: every `safe` for every count >= 2 is
// checked against brute force for 2..5 threads, and every answer for one count against its own
// run.
TEST(PredabsTest, EveryThreadCountClaimsHoldForSmallCounts) {
  Generator gen(99);
  std::size_t closed = 0;
  std::size_t changed = 0;
  std::size_t certified = 0;
  std::size_t invalid_passed = 0;
  const int programs = testing::Sweep(60);
  for (int round = 0; round < programs; ++round) {
    const Program program = ParseProgram(gen.Program(2, 3, round % 3 == 0, 2, true), "r.drb");
    const AbstractionSpec& spec = program.abstractions[0];
    const ThreadCounts counts = ParseThreadCounts("2..", program, 4);
    ASSERT_EQ(counts.last, 4U);
    std::vector<std::unique_ptr<StateStore>> sets;
    std::vector<Verdict> verdicts;
    const ThreadCountsResult result =
        RunThreadCounts(program, spec, counts, 5000, nullptr, nullptr, [&](std::uint32_t n) {
          EXPECT_EQ(n, 2 + sets.size()) << "the counts run in order";
          IntModel model(program, n);
          const PredicateAbstraction abs(model, spec, 5000);
          PlateauDriver<IntModel, PredicateAbstraction> run(model, abs);
          const RunResult one = run.Verify();
          sets.push_back(CopyStore(run.abstract_states()));
          verdicts.push_back(one.verdict);
          return CountOutcome{one.verdict, one.reason, sets.back().get()};
        });
    // The loop stops at the first count that is not safe, with that count's verdict.
    for (std::size_t i = 0; i + 1 < verdicts.size(); ++i) EXPECT_EQ(verdicts[i], Verdict::kSafe);
    if (verdicts.back() != Verdict::kSafe) {
      EXPECT_EQ(result.verdict, verdicts.back());
      EXPECT_FALSE(result.all.has_value());
      continue;
    }
    const std::set<std::vector<Word>> set = StoreSet(*sets.back());
    if (!result.all) {  // every count ran and the set kept changing
      EXPECT_EQ(sets.size(), 3U);
      EXPECT_EQ(result.verdict, Verdict::kUnknown);
      EXPECT_NE(StoreSet(*sets[1]), set);
      ++changed;
      continue;
    }
    ASSERT_GE(sets.size(), 2U);
    EXPECT_EQ(StoreSet(*sets[sets.size() - 2]), set) << "the closure test runs on agreeing sets";
    EXPECT_EQ(result.verdict, result.all->closed ? Verdict::kSafe : Verdict::kUnknown);
    if (!result.all->closed) continue;
    ++closed;
    std::vector<std::set<std::vector<Word>>> truth;  // for 2..5 threads
    for (std::uint32_t m = 2; m <= 5; ++m) {
      IntModel brute(program, m);
      const PredicateAbstraction brute_abs(brute, spec, 5000);
      truth.push_back(AbstractSet(brute_abs, Reachable(brute)));
      for (const auto& a : truth.back()) {
        EXPECT_TRUE(set.contains(a)) << "program " << round << ", " << m << " threads";
      }
    }
    // The certificate for every count, checked by the checker's symbolic encoding: whenever it
    // says valid, the claim holds for 2..5 threads; with a state dropped (one of them reachable),
    // it must not say valid.
    const std::string text = gen.Last();
    for (const bool drop : {false, true}) {
      // Half of the proofs, and a quarter with a state dropped: the symbolic queries cost more
      // than the rest of the test (all of them with DRUBA_SWEEP, `ctest -L long`).
      if (closed % (drop ? 4 : 2) != 0 && testing::SweepFactor() <= 1) continue;
      const std::unique_ptr<StateStore> copy =
          CopyStore(*sets.back(),
                    drop ? std::optional<std::uint32_t>(sets.back()->size() - 1) : std::nullopt);
      const StateStore& claimed = *copy;
      const check::CheckResult r = check::CheckDrbCertificate(
          ParseJson(PredicatesCertificate(
                        {"d", 2, true, false, "every-count", &program, &spec, &claimed}),
                    "c.json"),
          "d", text, "r.drb", 2000);  // undecided at 2 s: invalid, as ever
      if (!r.valid) continue;
      EXPECT_FALSE(drop) << "a certificate without a reachable state passed\n" << text;
      (drop ? invalid_passed : certified) += 1;
      const std::set<std::vector<Word>> ok = StoreSet(claimed);
      for (const auto& reachable : truth) {
        for (const auto& a : reachable) EXPECT_TRUE(ok.contains(a)) << text;
      }
    }
  }
  std::fprintf(stderr,
               "EveryThreadCount: %zu of %d programs proved for every count >= 2, each "
               "checked by brute force for 2..5 threads; %zu still changing at 4; %zu "
               "certificates checked valid for every count\n",
               closed, programs, changed, certified);
  EXPECT_GT(closed, testing::AtLeastU(15));
  EXPECT_GT(certified, testing::AtLeastU(6));
  EXPECT_EQ(invalid_passed, 0U);
}

// --threads and the default abstraction.
TEST(PredabsTest, ThreadCountsAndTheDefaultAbstraction) {
  const Program one = ParseProgram("shared int x = 0; thread P * 3 { a: x := x + 1; }", "p.drb");
  EXPECT_EQ(ParseThreadCounts("", one, 8).first, 3U);
  EXPECT_EQ(ParseThreadCounts("", one, 8).last, 3U);
  const ThreadCounts every = ParseThreadCounts("2..", one, 8);
  EXPECT_TRUE(every.every_count_from_first);
  EXPECT_EQ(every.last, 8U);
  EXPECT_EQ(ParseThreadCounts("7..", one, 3).last, 8U) << "at least two counts compared";
  EXPECT_EQ(every.Text(), "2..");
  for (const char* bad : {"0", "x", "2..x", "..", "12345", "-1"}) {
    EXPECT_THROW(ParseThreadCounts(bad, one, 8), InputError) << bad;
  }
  const ChosenAbstraction all = ChooseAbstraction(one, "", ParseThreadCounts("", one, 8));
  EXPECT_EQ(all.spec().pcs.size(), 3U) << "every thread's location";
  EXPECT_FALSE(all.spec().symmetric);
  const ChosenAbstraction sym = ChooseAbstraction(one, "", every);
  EXPECT_EQ(sym.spec().pcs.size(), 1U) << "thread 0's location for every count";
  EXPECT_TRUE(sym.spec().symmetric);
  EXPECT_THROW(ChooseAbstraction(one, "nope", every), InputError);
  const Program two = ParseProgram(
      "shared int x = 0; thread P * 2 { a: x := x + 1; } thread Q { b: x := 0; }\n"
      "abstraction first { predicate x == 0; } abstraction second { predicate x > 0; }",
      "q.drb");
  EXPECT_EQ(ChooseAbstraction(two, "", ParseThreadCounts("", two, 8)).spec().name, "first");
  EXPECT_EQ(ChooseAbstraction(two, "second", ParseThreadCounts("", two, 8)).spec().name, "second");
  EXPECT_THROW(ParseThreadCounts("4", two, 8), InputError) << "several templates fix the count";
  EXPECT_THROW(ParseThreadCounts("3..", two, 8), InputError) << "N.. needs one template";
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
