// A `.drb` program in the words of druba's reports (src/run): a step is its label, statement and
// line, and a run also reports the respect classification, the solver's work and every break of
// closure.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "predabs/describe.h"
#include "predabs/model.h"
#include "predabs/predicate_abstraction.h"
#include "predabs/refine.h"
#include "run/options.h"
#include "run/report.h"

namespace druba::predabs {

// What a certificate of the predicates kind says (docs/certificates.md).
struct PredicatesFacts {
  std::string digest;
  std::uint32_t threads = 0;
  bool every_count = false;  // for every thread count >= threads
  bool deadlock = false;
  std::string proof;
  const Program* program = nullptr;
  const AbstractionSpec* spec = nullptr;
  const StateStore* set = nullptr;  // the abstract states
};

inline std::string PredicatesCertificate(const PredicatesFacts& f) {
  std::string states;
  for (std::uint32_t id = 0; id < f.set->size(); ++id) {
    const StateView a = f.set->Get(id);
    states += id == 0 ? "\n [" : ",\n [";
    for (std::size_t i = 0; i < a.size(); ++i) states += (i == 0 ? "" : ",") + std::to_string(a[i]);
    states += "]";
  }
  run::Json head = {{"druba_certificate", 1},
                    {"kind", "drb predicates"},
                    {"digest", f.digest},
                    {"threads", f.threads},
                    {"proof", f.proof},
                    {"deadlock", f.deadlock},
                    {"abstraction", AbstractionBlock(*f.program, *f.spec, "druba_certificate")}};
  if (f.every_count) head["every_count"] = true;
  std::string text = head.dump();
  text.pop_back();  // the closing brace: the states follow
  return text + ",\n\"abstract_states\": [" + states + "\n]}\n";
}

// A `.drb` program in the report's words: a step is its label, statement and line.
struct DrbDescriber {
  const run::RunOptions& options;
  const Program& program;
  IntModel& model;
  PredicateAbstraction& abs;
  bool fixed_count;

  std::string State(StateView s) const { return model.DescribeState(s); }
  std::string Abstract(StateView a) const { return "(" + abs.Describe(a) + ")"; }
  void Step(const TraceStep& prev, const TraceStep& cur, run::TraceLine& line) const {
    const Statement& st = program.statements[cur.action];
    line.action = st.label + ": " + st.text + " (line " + std::to_string(st.where.line) + ")";
    line.changes = model.DescribeChanges(StateView(prev.state), StateView(cur.state));
    if (cur.state[model.PcSlot(cur.thread)] == program.error_pc) {
      line.failure = FailureText(model.FailureOf(StateView(prev.state), cur.thread, cur.action));
    }
    line.fields = {{"label", st.label}, {"line", st.where.line}, {"statement", st.text}};
    if (!line.failure.empty()) line.fields["failure"] = line.failure;
  }
  std::string DotAction(std::uint32_t t, std::uint32_t a) const {
    return "T" + std::to_string(t) + " " + program.statements[a].label;
  }
  std::string TooBig(StateView state) const {
    if (!model.HasValueBeyond(state, options.max_value)) return {};
    return "explicit: a variable's value went beyond " + std::to_string(options.max_value) +
           " (--max-value); the state space may be infinite, which explicit search cannot handle";
  }
  std::size_t ExtraBytes() const { return 0; }
  std::optional<SandwichSetup> Sandwich() const {
    if (!fixed_count || options.upper_bound != run::UpperBound::kJoint || options.deadlock)
      return std::nullopt;
    return MakeSandwich(abs);
  }
  std::string Relation() const { return "all-SAT"; }
  // The respect classification, the solver's work, every break of closure, and a copy of the
  // abstract set for the loop over thread counts.
  std::string PropertyOf(StateView state) const {
    return model.AnyThreadFailed(state) ? "assertion" : "deadlock";
  }
  // --deadlock: a state where no thread can move and some has not finished (Finished) violates.
  // The abstraction does not decide it: exhaustion proves its absence, or at one thread count the
  // solver over the reached abstract set (PredicateAbstraction::DeadlockFree).
  template <class Driver>
  void SetUpProperty(Driver& driver) const {
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
  void AddFigures(run::CountRun& out, Driver& driver) const {
    if (out.result.verdict == Verdict::kSafe || out.result.closure_failure) {
      for (const ActionClass& c : abs.Classes()) {
        ++out.num_actions;
        if (c.respects) continue;
        out.disrespecting.push_back(abs.DescribeAction(c.other ? kOtherThread : c.thread, c.stmt) +
                                    (c.undecided ? " [respect undecided]" : ""));
      }
    }
    out.solver = run::SolverFigures{abs.solver_stats().queries, abs.solver_stats().seconds};
    if (out.closure_break) out.closure_breaks = ClosureBreaks(abs, driver.abstract_states(), 20);
    auto copy = std::make_shared<StateStore>(abs.width());
    const StateStore& set = driver.abstract_states();
    for (std::uint32_t id = 0; id < set.size(); ++id) copy->FindOrInsert(set.Get(id));
    out.abstract_set = std::move(copy);
    if (!options.certificate.empty() && out.result.verdict == Verdict::kSafe) {
      Certify(out, driver.abstract_states(), driver);
    }
    // Refinement weighs its candidates on the concrete states of a run that ended unknown (or, for
    // every count, of the run whose set the closure across counts tests); a state with an interned
    // big integer is only readable by this model, so then none is kept.
    const bool may_refine = out.result.verdict == Verdict::kUnknown ||
                            (!fixed_count && out.result.verdict == Verdict::kSafe);
    if (options.refine && options.command == run::Command::kVerify && may_refine &&
        model.values().num_big() == 0) {
      const auto& explorer = driver.explorer();
      auto sample = std::make_shared<std::vector<Word>>();
      const std::size_t n = std::min(explorer.num_states(), run::kConcreteSample);
      for (std::uint32_t id = 0; id < n; ++id) {
        const std::vector<Word> state = explorer.state(id);
        sample->insert(sample->end(), state.begin(), state.end());
      }
      out.concrete_sample = std::move(sample);
    }
  }

  // The certificate of a `safe` at one thread count (docs/certificates.md): the abstraction and
  // the abstract set when that set is inductive, else, after exhaustion, the reachable states.
  template <class Driver>
  void Certify(run::CountRun& out, const StateStore& set, const Driver& driver) const {
    // For every count the certificate is written once the closure across counts holds
    // (cli/drb_command.cc); after an upper-bound proof the set is O, closed under the abstract
    // post of every statement with the view invariant: a certificate as it stands.
    if (!fixed_count) return;
    std::uint64_t checks = 0;
    if (out.result.proof == Proof::kExhausted &&
        (options.deadlock || CheckClosure(abs, set, &checks, /*all_actions=*/true))) {
      CertifyExplicit(out, driver);
      return;
    }
    out.certificate = PredicatesCertificate(
        {options.model_digest, model.num_threads(), false, options.deadlock,
         std::string(ProofName(out.result.proof)), &program, &abs.spec(), &set});
  }

  // The explicit certificate: every state the exhaustive search reached (each variable's value,
  // each thread's location), which is the reachable set.
  template <class Driver>
  void CertifyExplicit(run::CountRun& out, const Driver& driver) const {
    std::string states;
    bool fits = true;
    driver.ForEachState([&](StateView s) {
      const auto value = [&](Word w) {
        const Int v = model.values().Decode(w);
        fits = fits && v <= INT64_MAX && v >= INT64_MIN;
        return v.str();
      };
      std::string row;
      for (std::size_t v = 0; v < program.shared.size(); ++v) row += "," + value(s[v]);
      for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
        row += "," + std::to_string(s[model.PcSlot(t)]);
        for (std::uint32_t v = 0; v < program.locals.size(); ++v) {
          row += "," + value(s[model.LocalSlot(t, v)]);
        }
      }
      row[0] = '[';
      states += (states.empty() ? "\n " : ",\n ") + row + "]";
    });
    if (!fits) {
      out.certificate_note = "a reachable value does not fit in 64 bits";
      return;
    }
    const run::Json head = {
        {"druba_certificate", 1},         {"kind", "drb explicit"},
        {"digest", options.model_digest}, {"threads", model.num_threads()},
        {"deadlock", options.deadlock},   {"proof", ProofName(out.result.proof)}};
    std::string text = head.dump();
    text.pop_back();  // the closing brace: the states follow
    out.certificate = text + ",\n\"states\": [" + states + "\n]}\n";
  }
};

}  // namespace druba::predabs
