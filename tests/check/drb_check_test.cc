// Differential tests of the certificate checker (src/check) against druba's model and proofs:
// explicit certificates against the model's semantics; the certificates of random proofs valid, and
// with a state dropped invalid.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "abstraction/driver.h"
#include "abstraction/upper_bound.h"
#include "check/drb_check.h"
#include "check/drb_explicit.h"
#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "explore/canonical.h"
#include "interp/model.h"
#include "interp/program.h"
#include "predabs/brute_force.h"
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

// An explicit certificate of `states` (but `drop`) for `model` (docs/certificates.md), with
// "symmetry": "threads" when `up_to_symmetry`.
std::string ExplicitCertificate(const Program& program, const IntModel& model, const States& states,
                                std::size_t drop, bool up_to_symmetry) {
  std::string rows;
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (i == drop) continue;
    rows += rows.empty() ? "[" : ",[";
    for (std::size_t w = 0; w < states[i].size(); ++w) {
      const bool pc = w >= program.shared.size() &&
                      (w - program.shared.size()) % (1 + program.locals.size()) == 0;
      rows += (w == 0 ? "" : ",") +
              (pc ? std::to_string(states[i][w]) : model.values().Decode(states[i][w]).str());
    }
    rows += "]";
  }
  return R"({"druba_certificate": 1, "kind": "drb explicit", "digest": "d", "proof": "exhausted", )"
         R"("threads": )" +
         std::to_string(model.num_threads()) + R"(, "deadlock": false, "symmetry": ")" +
         (up_to_symmetry ? "threads" : "none") + R"(", "states": [)" + rows + "]}";
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
      return check::CheckDrbExplicitCertificate(
          ParseJson(ExplicitCertificate(program, model, safe_part, drop, false), "c.json"), "d",
          text, "random.drb");
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

// Certificates up to thread symmetry ("symmetry": "threads"): one state per orbit of the reachable
// states without a failed thread, as druba's canonical form picks them (explore/canonical.h sorts
// words, not the checker's numbers, so the checker must form its own). For a symmetric program
// the certificate must be valid exactly when no failure is reachable, and with a form other than
// the initial state's dropped it must not be; for a program the reader finds asymmetric (another
// thread's entry read at an index computed from values), the checker's own test must refuse the
// claim.
TEST(PredabsTest, ExplicitCertificatesUpToSymmetryAgreeWithTheModel) {
  Generator gen(31);
  std::size_t valid = 0;
  std::size_t failing = 0;
  std::size_t refused = 0;
  for (int round = 0; round < testing::Sweep(300); ++round) {
    gen.SetStructured(round % 2 == 0);
    const auto n = static_cast<std::uint32_t>(2 + round % 2);
    const std::string text =
        gen.Program(n, 3 + round % 3, round % 2 == 0, 1 + round % 2, round % 3 != 2);
    const Program program = ParseProgram(text, "random.drb");
    IntModel model(program, n);
    ThreadSymmetry symmetry{model.PcSlot(0), model.PcSlot(1) - model.PcSlot(0), {{}}};
    for (std::uint32_t t = 0; t < n; ++t) symmetry.classes[0].push_back(t);
    const CanonicalForm canonical(symmetry);
    std::set<std::vector<Word>> forms;
    bool fails = false;
    std::vector<Word> form(model.state_width());
    for (const auto& s : Reachable(model)) {
      const bool failed = model.AnyThreadFailed(StateView(s));
      fails = fails || failed;
      canonical.Apply(StateView(s), std::span<Word>(form));
      if (!failed) forms.insert(form);
    }
    model.ForEachInitial([&](StateView s) { canonical.Apply(s, std::span<Word>(form)); });
    const States rows(forms.begin(), forms.end());
    const auto certificate = [&](std::size_t drop) {
      return check::CheckDrbExplicitCertificate(
          ParseJson(ExplicitCertificate(program, model, rows, drop, true), "c.json"), "d", text,
          "random.drb");
    };
    const check::CheckResult whole = certificate(rows.size());
    if (!program.symmetric) {
      EXPECT_FALSE(whole.valid) << text;
      EXPECT_EQ(whole.failed, "symmetry") << text << whole.example;
      ++refused;
      continue;
    }
    EXPECT_EQ(whole.valid, !fails) << text << whole.failed << ": " << whole.example;
    if (fails) {
      EXPECT_EQ(whole.failed, "closure") << text << whole.example;
    }
    valid += whole.valid;
    failing += fails;
    const auto initial = std::find(rows.begin(), rows.end(), form) - rows.begin();
    if (rows.size() > 1) {
      const std::size_t drop = (static_cast<std::size_t>(initial) + 1 + round) % rows.size();
      if (drop == static_cast<std::size_t>(initial)) continue;
      const check::CheckResult dropped = certificate(drop);
      EXPECT_FALSE(dropped.valid) << text;
      EXPECT_EQ(dropped.failed, "closure") << text << dropped.example;
    }
  }
  std::fprintf(stderr,
               "ExplicitCertificatesUpToSymmetry: %zu valid, %zu with a reachable failure, %zu "
               "asymmetric programs refused\n",
               valid, failing, refused);
  EXPECT_GT(valid, testing::AtLeastU(60));
  EXPECT_GT(failing, testing::AtLeastU(8));
  EXPECT_GT(refused, testing::AtLeastU(20));
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

}  // namespace
}  // namespace druba::predabs
