// Per-pair arrays (`shared T p[threads][threads]`) through three independent computations: the
// interpreter (IntModel) under brute force, the solver encoding step by step, and the certificate
// checker's own interpreter; and the reader's errors for them.
#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "check/drb_explicit.h"
#include "common/diagnostics.h"
#include "common/files.h"
#include "common/json_reader.h"
#include "interp/model.h"
#include "interp/program.h"
#include "invariants/instance_candidates.h"
#include "predabs/brute_force.h"
#include "smt/encoder.h"
#include "support/random_drb.h"
#include "support/sweep.h"

namespace druba::predabs {
namespace {

// The reachable states of `model` (but `drop`) as an explicit certificate (docs/certificates.md).
std::string Certificate(const IntModel& model, const States& states, std::size_t drop) {
  std::set<std::size_t> pcs;
  for (std::uint32_t t = 0; t < model.num_threads(); ++t) pcs.insert(model.PcSlot(t));
  std::string rows;
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (i == drop) continue;
    rows += rows.empty() ? "[" : ",[";
    for (std::size_t w = 0; w < states[i].size(); ++w) {
      rows += (w == 0 ? "" : ",") + (pcs.contains(w) ? std::to_string(states[i][w])
                                                     : model.values().Decode(states[i][w]).str());
    }
    rows += "]";
  }
  return R"({"druba_certificate": 1, "kind": "drb explicit", "digest": "d", "proof": "exhausted", )"
         R"("threads": )" +
         std::to_string(model.num_threads()) + R"(, "deadlock": false, "states": [)" + rows + "]}";
}

// Random programs with a per-pair array: a safe verdict's abstract set is the abstraction of the
// reachable states and a violation is real (the closure tests are the solver encoding's); the
// reachable states without a failure are a valid certificate for the checker's interpreter
// exactly when no failure is reachable, and one state short they are not.
TEST(PairArraysTest, VerdictsAndCertificatesAgreeWithBruteForce) {
  Generator gen(41);
  gen.SetPairs(true);
  std::size_t safe = 0;
  std::size_t violations = 0;
  std::size_t entries = 0;  // programs that write an entry chosen at run time
  for (int round = 0; round < testing::Sweep(160); ++round) {
    const auto n = static_cast<std::uint32_t>(1 + round % 3);
    const std::string text = gen.Program(n, 3 + round % 3, true, 1 + round % 2, round % 3 != 2);
    const std::string code = text.substr(0, text.find("abstraction"));
    entries += code.find("(y % 3)] :=") != std::string::npos ||
               code.find("(x % 3)][self] :=") != std::string::npos;
    const Program program = ParseProgram(text, "random.drb");
    const auto [verdict, fails] = JudgeAgainstBruteForce(program, n, text);
    EXPECT_NE(verdict, Verdict::kUnknown) << text;  // finite: decided
    safe += verdict == Verdict::kSafe;
    violations += verdict == Verdict::kViolation;

    IntModel model(program, n);
    States safe_part;
    for (const auto& s : Reachable(model)) {
      if (!model.AnyThreadFailed(StateView(s))) safe_part.push_back(s);
    }
    const auto check = [&](std::size_t drop) {
      return check::CheckDrbExplicitCertificate(
          ParseJson(Certificate(model, safe_part, drop), "c.json"), "d", text, "random.drb");
    };
    const check::CheckResult whole = check(safe_part.size());
    EXPECT_EQ(whole.valid, !fails) << text << whole.failed << ": " << whole.example;
    if (safe_part.size() > 1) {
      const check::CheckResult short_one = check(1 + round % (safe_part.size() - 1));
      EXPECT_FALSE(short_one.valid) << text;
    }
  }
  std::fprintf(stderr, "PairArrays: %zu safe, %zu violations, %zu writing an entry at run time\n",
               safe, violations, entries);
  EXPECT_GT(safe, testing::AtLeastU(20));
  EXPECT_GT(violations, testing::AtLeastU(20));
  EXPECT_GT(entries, testing::AtLeastU(20));
}

// The encoding reads and writes p[row][column], not p[column][row], and fails an index out of
// range: each step of a small program, from each state it reaches.
TEST(PairArraysTest, EncoderTellsRowsFromColumns) {
  const Program program = ParseProgram(
      "shared int p[threads][threads] = 0;\nlocal int k = 1;\nthread T * 2 {\n"
      "  a: p[self][1 - self] := self + 1, k := 2 * k;\n  b: assert p[1 - self][self] != 1;\n"
      "  c: assume p[self][k] == 7;\n}\n",
      "m.drb");
  IntModel model(program, 2);
  auto solver = MakeZ3Solver(5000);
  Encoder enc(program, *solver);
  const ThreadCount count = enc.Fixed(2);
  std::size_t failures = 0;
  for (const auto& state : Reachable(model)) {
    for (std::uint32_t t = 0; t < 2; ++t) {
      if (state[model.PcSlot(t)] < program.statements.size()) {
        failures += CompareStep(enc, count, model, state, t);
      }
    }
  }
  EXPECT_GT(failures, 0U);  // thread 1 at b after thread 0's write; c's index out of range
}

// The same from sampled reachable states of random programs with a per-pair array.
TEST(PairArraysTest, EncoderAgreesWithTheInterpreter) {
  Generator gen(43);
  gen.SetPairs(true);
  std::mt19937 rng(5);
  std::size_t compared = 0;
  std::size_t failures = 0;
  ForSampledSteps(gen, testing::Sweep(40), 4, rng,
                  [&](Encoder& enc, const ThreadCount& count, IntModel& model,
                      const std::vector<Word>& state, std::uint32_t t) {
                    failures += CompareStep(enc, count, model, state, t);
                    ++compared;
                  });
  std::fprintf(stderr, "PairArrays encoder: %zu steps compared, %zu into the error location\n",
               compared, failures);
  EXPECT_GT(compared, testing::AtLeastU(150));
  EXPECT_GT(failures, testing::AtLeastU(10));
}

// What Ricart and Agrawala's protocol (models/ricart-agrawala.drb) needs read off its instances,
// from a few thousand states of 2 and 3 threads: its row of replies where a thread stands, the
// replies its scan has cleared, "a reply goes to the older request", and the clock above every
// timestamp; and nothing that a state seen contradicts (the row of a thread that asks is empty).
TEST(PairArraysTest, CandidatesOfRepliesAndTimestamps) {
  const std::string text = ReadFile(DRUBA_SOURCE_DIR "/models/ricart-agrawala.drb");
  const Program program = ParseProgram(text, "ricart-agrawala.drb");
  CandidateReader reader(program);
  for (std::uint32_t n = 2; n <= 3; ++n) {
    OrderedFigures::Instance figures;
    EXPECT_FALSE(reader.Explore(n, nullptr, figures, 20'000));
  }
  const std::vector<std::string> candidates = reader.Candidates();
  const auto has = [&](const std::string& c) {
    return std::find(candidates.begin(), candidates.end(), c) != candidates.end();
  };
  EXPECT_TRUE(has("forall j: j == self || pc[self] != crit || ok[self][j]"));
  EXPECT_TRUE(has("forall j: j == self || pc[self] != ask || !ok[self][j]"));
  EXPECT_TRUE(has("forall j: pc[self] != reset || j >= k[self] || !ok[self][j]"));
  EXPECT_TRUE(
      has("forall j: j <= self || pc[self] != collect || pc[j] != collect || "
          "!ok[self][j] || ts[self] < ts[j]"));
  EXPECT_TRUE(has("ts[self] <= clock"));
  EXPECT_FALSE(has("forall j: j == self || pc[self] != collect || ok[self][j]"));
  EXPECT_FALSE(has("forall j: j == self || pc[self] != collect || !ok[self][j]"));
}

// Encoder::QuantifierWitnesses, with the thread count left symbolic (ids ordered): the witness of
// `assert forall i != self: pc[i] != crit` is a thread at crit whenever the assertion fails (here
// thread 2 of 3, with thread 0 the one asserting), and the facts never exclude a state (with no
// other thread at crit, the state is still there).
TEST(PairArraysTest, WitnessesNameTheThreadAnAssertionIsAbout) {
  const Program program = ParseProgram(
      "thread T * 2 {\n  wait: skip;\n  crit: assert forall i != self: pc[i] != crit;\n}\n",
      "m.drb");
  const std::uint32_t crit = 1;
  auto solver = MakeZ3Solver(5000);
  Encoder enc(program, *solver);
  std::vector<Term> facts;
  const ThreadCount count = enc.Ordered(2, facts);
  const SymState pre = enc.FreshState("s", count);
  const Term t = solver->Num(0);
  const std::vector<Term> witnesses = enc.QuantifierWitnesses(crit, t, pre, count, facts);
  ASSERT_EQ(witnesses.size(), 1U);
  const auto at = [&](std::int64_t thread, std::uint32_t pc) {
    return solver->Eq(solver->Select(pre.pc, solver->Num(thread)), solver->Num(pc));
  };
  std::vector<Term> state = facts;
  state.push_back(solver->Eq(count.n, solver->Num(3)));
  state.push_back(at(0, crit));
  state.push_back(at(1, 0));
  std::vector<Term> failing = state;
  failing.push_back(at(2, crit));
  failing.push_back(solver->Not(solver->Eq(witnesses[0], solver->Num(2))));
  EXPECT_EQ(solver->CheckAlone(failing), SatResult::kUnsat);
  state.push_back(at(2, 0));
  EXPECT_EQ(solver->CheckAlone(state), SatResult::kSat);
}

// The reader: a per-pair array is shared, both indices are `threads`, an entry names two threads,
// and one statement writes one entry of it.
TEST(PairArraysTest, ReaderErrorsNameTheLine) {
  const auto error = [](const std::string& text) -> std::string {
    try {
      ParseProgram(text, "m.drb");
    } catch (const InputError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_NE(error("shared bool p[threads][3];\nthread T { a: skip; }")
                .find("m.drb:1:24: error: a per-pair array is `p[threads][threads]`"),
            std::string::npos);
  EXPECT_NE(error("local bool p[threads][threads];\nthread T { a: skip; }").find("m.drb:1:14:"),
            std::string::npos);
  EXPECT_NE(error("shared bool p[threads][threads];\nthread T { a: assume p[self]; }")
                .find("m.drb:2:29: error: 'p' has an entry per pair of threads"),
            std::string::npos);
  EXPECT_NE(error("shared int p[threads][threads];\nthread T { a: p[self][0] := 1, p[0][self] := "
                  "2; }")
                .find("m.drb:2:32: error: 'p' is assigned twice in one statement"),
            std::string::npos);
  const Program p = ParseProgram(
      "shared bool p[threads][threads] = true;\nthread T * 2 { a: p[self][1 - self] := false; }",
      "m.drb");
  ASSERT_EQ(p.pairs.size(), 1U);
  EXPECT_FALSE(p.symmetric);
  IntModel model(p, 2);
  std::vector<Word> initial;
  model.ForEachInitial([&](StateView s) { initial.assign(s.begin(), s.end()); });
  std::vector<std::string> seen;
  model.ForEachSuccessor(StateView(initial), 0, [&](std::uint32_t, StateView s) {
    seen.push_back(model.DescribeState(s));
  });
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen[0], "T0: pc=end p=[true,false] | T1: pc=a p=[true,true]");
}

}  // namespace
}  // namespace druba::predabs
