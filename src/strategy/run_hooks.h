// What a `.drb` run adds beyond its words (run::KindHooks): deadlock as a property decided on
// concrete states, the sandwich proof's all-SAT post, the bound of explicit search (--max-value),
// and once the run is over the respect classification, the solver's work, every break of
// closure, a `safe` verdict's certificate, and what the loop over thread counts and refinement
// keep of the run (DrbKept).
#pragma once

#include <algorithm>
#include <any>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "abstraction/driver.h"
#include "interp/model.h"
#include "predabs/driver_setups.h"
#include "predabs/predicate_abstraction.h"
#include "run/options.h"
#include "run/report.h"
#include "strategy/certificate.h"
#include "strategy/options.h"

namespace druba::predabs {

// What a run keeps for the loop over thread counts and for refinement (run::CountRun::kept).
struct DrbKept {
  std::shared_ptr<const StateStore> abstract_set;  // a copy of the reached abstract set
  // A run that ended unknown: each variable's largest magnitude in the states reached, shared
  // variables first, then locals (IntModel::RaiseLargest), for the report's `next:` line.
  std::vector<std::uint64_t> largest;
  // Refinement: the first stored concrete states (at most kConcreteSample), one after another.
  std::shared_ptr<const std::vector<Word>> concrete_sample;
};
inline constexpr std::size_t kConcreteSample = 1 << 16;

// The DrbKept of a run (none: an empty one).
inline DrbKept KeptOf(const run::CountRun& run) {
  const auto* kept = std::any_cast<DrbKept>(&run.kept);
  return kept != nullptr ? *kept : DrbKept{};
}

// Refinement: the Round-Robin search of each thread count's last run, for the next round's run
// to take on (PlateauDriver::Adopt): every round has the same program, only the abstraction
// grows, so a round goes on from what earlier rounds explored instead of starting over.
struct SearchCache {
  using Search = PlateauDriver<IntModel, PredicateAbstraction>::Search;
  std::map<std::uint32_t, std::unique_ptr<Search>> by_count;
};

// After exhaustion: whether the certificate lists the states reached rather than the abstract
// set. The stored states are a certificate as they stand; the abstract set is one only when closed
// under every action (solver queries), and is preferred only when it is the smaller (no more
// states than abstract states: no query asked). Deadlock freedom: always the states.
inline bool StatesCertify(const PredicateAbstraction& abs, const StateStore& set,
                          std::uint64_t states, bool deadlock) {
  std::uint64_t checks = 0;
  return deadlock || states <= set.size() ||
         CheckClosure(abs, set, &checks, /*all_actions=*/true).has_value();
}

// For a `safe`, or a run whose closure test failed: how many actions there are and those that
// disrespect the abstraction, in the report's words.
inline void ListActions(PredicateAbstraction& abs, run::CountRun& out) {
  if (out.result.verdict != Verdict::kSafe && !out.result.closure_failure) return;
  for (const ActionClass& c : abs.Classes()) {
    ++out.num_actions;
    if (c.respects) continue;
    out.disrespecting.push_back(abs.DescribeAction(c.other ? kOtherThread : c.thread, c.stmt) +
                                (c.undecided ? " [respect undecided]" : ""));
  }
}

struct DrbHooks {
  const run::RunOptions& options;
  const DrbOptions& drb_options;
  const std::string& digest;  // ContentDigest of the program's text
  const Program& program;
  IntModel& model;
  PredicateAbstraction& abs;
  bool fixed_count;
  SearchCache* cache = nullptr;  // refinement's rounds (none: every run searches on its own)

  // Before the run: an earlier round's search at this count, when the driver can take it on.
  template <class Driver>
  void TakeOn(Driver& driver) const {
    if (cache == nullptr) return;
    const auto found = cache->by_count.find(model.num_threads());
    if (found != cache->by_count.end() && driver.Adopt(found->second)) cache->by_count.erase(found);
  }
  // After the run: its search, for the next round, when one may follow (no violation; for every
  // count a round of runs that are each `safe` may still end unknown) and its states are
  // readable by another model of the program (no interned big integer).
  template <class Driver>
  void HandOn(run::CountRun& out, Driver& driver) const {
    if (cache == nullptr || out.result.verdict == Verdict::kViolation ||
        options.command != run::Command::kVerify || model.values().num_big() != 0) {
      return;
    }
    if (auto search = driver.Release()) cache->by_count[model.num_threads()] = std::move(search);
  }

  std::string TooBig(StateView state) const {
    if (!model.HasValueBeyond(state, drb_options.max_value)) return {};
    return "explicit: a variable's value went beyond " + std::to_string(drb_options.max_value) +
           " (--max-value); the state space may be infinite, which explicit search cannot handle";
  }
  std::size_t ExtraBytes() const { return 0; }
  std::optional<SandwichSetup> Sandwich() const {
    if (!fixed_count || options.upper_bound != run::UpperBound::kJoint || options.deadlock)
      return std::nullopt;
    return MakeSandwich(abs);
  }
  // At one count, a symmetric program's exhaustion explores one state per orbit
  // (MakeOrbitSetup, abstraction/orbits.h). Not in the runs of `--threads N..`: its exact sets
  // steer refinement elsewhere (measured: the sense-reversing barrier's proof took 6.6 times as
  // long, three other models 1.3 to 1.5 times less).
  std::optional<OrbitSetup> ExhaustionSymmetry() const {
    // Its exhaustion is its only answer, which proves nothing over sampled values.
    if (!fixed_count || !options.symmetric_search || program.chooses_at.line != 0) {
      return std::nullopt;
    }
    return MakeOrbitSetup(abs, model);
  }
  std::string Relation() const { return "all-SAT"; }
  // --deadlock: a state where no thread can move and some has not finished (Finished) violates.
  // The abstraction does not decide it: exhaustion proves its absence, or at one thread count the
  // solver over the reached abstract set (PredicateAbstraction::DeadlockFree).
  template <class Driver>
  void SetUpProperty(Driver& driver) const {
    if (program.chooses_at.line != 0) {
      driver.SetExhaustionProvesNothing(SampledNote(program, model.samples().size()));
    }
    if (!options.deadlock) return;
    driver.CheckConcrete([this](StateView state) { return model.Deadlocked(state); },
                         "deadlock freedom");
    // At one count the solver may show that no state the reached abstract set admits is a
    // deadlock (docs/drb.md): then the plateau proof answers without exhaustion.
    if (fixed_count) {
      driver.ProveConcreteBy([this](const StateStore& set) { return abs.DeadlockFree(set); });
    }
  }
  template <class Driver>
  void Finish(run::CountRun& out, Driver& driver) const {
    ListActions(abs, out);
    out.solver = run::SolverFigures{abs.solver_stats().queries, abs.solver_stats().seconds};
    if (out.closure_break) out.closure_breaks = ClosureBreaks(abs, driver.abstract_states(), 20);
    DrbKept kept;
    auto copy = std::make_shared<StateStore>(abs.width());
    const StateStore& set = driver.abstract_states();
    for (std::uint32_t id = 0; id < set.size(); ++id) copy->FindOrInsert(set.Get(id));
    kept.abstract_set = std::move(copy);
    if (!options.certificate.empty() && out.result.verdict == Verdict::kSafe) {
      Certify(out, driver.abstract_states(), driver);
    }
    // Refinement weighs its candidates on the concrete states of a run that ended unknown (or, for
    // every count, of the run whose set the closure across counts tests); a state with an interned
    // big integer is only readable by this model, so then none is kept.
    const bool may_refine = out.result.verdict == Verdict::kUnknown ||
                            (!fixed_count && out.result.verdict == Verdict::kSafe);
    if (drb_options.refine && options.command == run::Command::kVerify && may_refine &&
        model.values().num_big() == 0) {
      auto sample = std::make_shared<std::vector<Word>>();
      driver.ForEachState(
          [&](StateView state) { sample->insert(sample->end(), state.begin(), state.end()); },
          kConcreteSample);
      kept.concrete_sample = std::move(sample);
    }
    if (out.result.verdict == Verdict::kUnknown) {
      kept.largest.assign(model.program().shared.size() + model.program().locals.size(), 0);
      driver.ForEachState([&](StateView state) { model.RaiseLargest(state, kept.largest); });
    }
    out.kept = std::move(kept);
  }

  // The certificate of a `safe` at one thread count (docs/certificates.md): the abstraction and
  // the abstract set when that set is inductive and, after exhaustion, smaller than the
  // reachable states (or one per orbit), else those.
  template <class Driver>
  void Certify(run::CountRun& out, const StateStore& set, const Driver& driver) const {
    // For every count the certificate is written once the closure across counts holds
    // (strategy/verify.cc); after an upper-bound proof the set is O, closed under the abstract
    // post of every statement with the view invariant: a certificate as it stands.
    if (!fixed_count) return;
    if (out.result.proof == Proof::kExhausted &&
        StatesCertify(abs, set, driver.num_states(), options.deadlock)) {
      CertifyExplicit(out, driver);
      return;
    }
    out.certificate = PredicatesCertificate({digest, model.num_threads(), false, options.deadlock,
                                             std::string(ProofName(out.result.proof)), &program,
                                             &abs.spec(), &set});
  }

  // The explicit certificate: every state the exhaustive search reached (each variable's value,
  // each thread's location), which is the reachable set; after a search over one state per orbit,
  // those states ("symmetry": "threads"), which `druba check` reads up to thread permutations.
  template <class Driver>
  void CertifyExplicit(run::CountRun& out, const Driver& driver) const {
    std::vector<std::string> rows;
    bool fits = true;
    driver.ForEachState(
        [&](StateView s) { rows.push_back(ExplicitRow(program, model, s, &fits)); });
    if (!fits) {
      out.certificate_note = "a reachable value does not fit in 64 bits";
      return;
    }
    out.certificate = ExplicitCertificate(
        {digest, model.num_threads(), options.deadlock, std::string(ProofName(out.result.proof)),
         driver.answered_up_to_symmetry()},
        std::move(rows));
  }
};

}  // namespace druba::predabs
