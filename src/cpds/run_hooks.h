// What a CPDS run adds beyond its words (run::KindHooks): the sandwich proof of top_k.h with the
// chosen relation, the bound of explicit search (--max-stack), and a `safe` verdict's certificate
// (certificate.h), written while the run's states are at hand.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cpds/certificate.h"
#include "cpds/model.h"
#include "cpds/options.h"
#include "cpds/top_k.h"
#include "run/options.h"
#include "run/report.h"

namespace druba::cpds {

struct CpdsHooks {
  const run::RunOptions& options;
  const CpdsOptions& cpds_options;
  const std::string& digest;  // ContentDigest of the model, initial state and target texts
  CpdsModel& model;
  const TopKAbstraction& abs;
  bool has_target;

  std::string TooBig(StateView state) const {
    for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
      if (model.stacks().DepthUpTo(state[1 + t], cpds_options.max_stack) > cpds_options.max_stack) {
        return "explicit: thread " + std::to_string(t) + "'s stack grew past " +
               std::to_string(cpds_options.max_stack) +
               " symbols (--max-stack); its stack may be unbounded, which explicit search "
               "cannot handle";
      }
    }
    return {};
  }
  std::size_t ExtraBytes() const { return model.stacks().MemoryBytes(); }
  std::optional<SandwichSetup> Sandwich() const {
    if (options.upper_bound == run::UpperBound::kOff) return std::nullopt;
    SandwichSetup setup = cpds::MakeSandwich(abs, options.upper_bound != run::UpperBound::kStatic,
                                             has_target || options.deadlock);
    setup.share = cpds_options.upper_bound_share;
    if (!options.symmetric_search) setup.concrete_symmetry.classes.clear();
    return setup;
  }
  // A CPDS's interchangeable threads serve the sandwich proof's search (concrete_symmetry); its
  // exhaustion raises bounds as the paper does.
  std::optional<OrbitSetup> ExhaustionSymmetry() const { return std::nullopt; }
  std::string Relation() const {
    return std::string(options.upper_bound == run::UpperBound::kAuto
                           ? "joint"
                           : run::UpperBoundName(options.upper_bound));
  }
  // A CPDS deadlock is decided by the abstraction (TopKAbstraction::SetDeadlock).
  template <class Driver>
  void SetUpProperty(Driver& /*driver*/) const {}
  template <class Driver>
  void Finish(run::CountRun& out, Driver& driver) const {
    out.symmetry_classes = abs.Symmetry().classes;
    if (!options.certificate.empty() && out.result.verdict == Verdict::kSafe) {
      Certify(out, driver.abstract_states(), driver);
    }
  }
  // The certificate of a `safe` (certificate.h): the final set and the relation relative to it.
  template <class Driver>
  void Certify(run::CountRun& out, const StateStore& set, const Driver& driver) const {
    // After an upper-bound proof the set is O, closed under every action with pops from the
    // relation computed with it: a certificate as it stands.
    // After exhaustion the set is exactly alpha(R); it is a certificate when it is closed under
    // every action with pops drawn from the relation, which this engine tests first.
    std::uint64_t checks = 0;
    if (out.result.proof == Proof::kExhausted &&
        CheckClosure(abs, set, &checks, /*all_actions=*/true)) {
      return CertifyExact(out, driver);
    }
    Write(out, set, abs.k());
  }

  // After exhaustion with a set that is not closed: the top-K abstraction with K one more than the
  // deepest reachable stack is exact on the reachable states (a pop from a stack of fewer than K
  // symbols frees a slot that stays empty), so the reachable states, written as its abstract
  // states, are closed without the relation's help (a certificate of the same kind).
  template <class Driver>
  void CertifyExact(run::CountRun& out, const Driver& driver) const {
    const std::uint32_t n = model.num_threads();
    std::uint32_t k = 1;
    driver.ForEachState([&](StateView s) {
      for (std::uint32_t t = 0; t < n; ++t) {
        k = std::max(k, model.stacks().DepthUpTo(s[1 + t], kMaxExactDepth) + 1);
      }
    });
    if (k > kMaxExactDepth) {
      out.certificate_note =
          "the exact abstract set the exhaustive search found is not closed "
          "under the abstract post, and a reachable stack is deeper than " +
          std::to_string(kMaxExactDepth - 1) + " symbols";
      return;
    }
    const TopKAbstraction deep(model, k, std::nullopt);
    StateStore exact(deep.width());
    std::vector<Word> a(deep.width());
    driver.ForEachState([&](StateView s) {
      deep.Abstract(s, std::span<Word>(a));
      exact.FindOrInsert(StateView(a));
    });
    Write(out, exact, k);
  }
  static constexpr std::uint32_t kMaxExactDepth = 64;  // the checker's largest K

  void Write(run::CountRun& out, const StateStore& set, std::uint32_t k) const {
    const VisibleFacts visible = VisibleFacts::OfTopK(model.cpds(), set, k);
    const MayLieBelow below(model.cpds(), model.init(), &visible);
    out.certificate = CertificateText({digest, k, model.num_threads(), options.deadlock, has_target,
                                       std::string(ProofName(out.result.proof)), &set, &below});
  }
};

}  // namespace druba::cpds
