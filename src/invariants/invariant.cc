#include "invariants/invariant.h"

#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/diagnostics.h"
#include "smt/encoder.h"

namespace druba::predabs {

std::string InvariantBlock(const std::vector<LocatedFormula>& invariant) {
  std::string out = "abstraction druba_invariant {\n";
  for (std::size_t i = 0; i < invariant.size(); ++i) {
    out += fmt::format("  predicate at{}: {};\n", i, invariant[i].formula);
  }
  return out + "}\n";
}

namespace {

class Conditions {
 public:
  Conditions(const Program& program, std::uint32_t threads,
             const std::vector<LocatedFormula>& invariant, unsigned timeout_ms, LimitWatch* limits)
      : p_(program),
        invariant_(invariant),
        solver_(MakeZ3Solver(timeout_ms)),
        s_(*solver_),
        enc_(program, s_),
        count_(enc_.Fixed(threads)),
        limits_(limits) {
    s_.WatchLimits(limits);
  }

  // "" when the initial state is covered.
  std::string Initial() {
    const SymState s0 = enc_.FreshState("init", count_);
    return Unsat({enc_.Initial(s0, count_), enc_.WellFormed(s0, count_), s_.Not(Covered(s0))})
               ? ""
               : "the initial state is not covered" + undecided_;
  }

  // "" when every step from the states covered at tuple `k` leads to a covered state.
  std::string Steps(std::size_t k) {
    const Tuple& at = invariant_[k].at;
    for (std::uint32_t i = 0; i < at.size(); ++i) {
      if (at[i] >= p_.statements.size()) continue;  // finished
      const SymState pre = enc_.FreshState("s", count_);
      const SymState post = enc_.FreshState("t", count_);
      const Term step = enc_.Step(at[i], s_.Num(i), pre, post, count_);
      if (!Unsat({Here(k, pre), step, s_.Not(Covered(post, &at, i))})) {
        return fmt::format("a step of thread {} at {} from tuple {} leaves the invariant{}", i,
                           p_.PcName(at[i]), k, undecided_);
      }
    }
    return "";
  }

  // "" when no state covered at tuple `k` is a deadlock.
  std::string Deadlock(std::size_t k) {
    const Tuple& at = invariant_[k].at;
    const SymState s = enc_.FreshState("d", count_);
    std::vector<Term> stuck{Here(k, s)};
    bool finished = true;
    for (std::uint32_t i = 0; i < at.size(); ++i) {
      if (at[i] >= p_.statements.size()) continue;
      finished = finished && p_.statements[at[i]].label.starts_with("end");  // IntModel::Finished
      stuck.push_back(s_.Not(enc_.Enabled(at[i], s_.Num(i), s, count_)));
    }
    if (finished || Unsat(stuck)) return "";
    return fmt::format("tuple {} admits a deadlock{}", k, undecided_);
  }

  std::uint64_t queries() const { return queries_; }

 private:
  // A well-formed state at tuple k that satisfies its formula.
  Term Here(std::size_t k, const SymState& s) {
    return s_.And({enc_.WellFormed(s, count_), At(invariant_[k].at, s),
                   enc_.Eval(*Formula(k), s, count_, count_.zero)});
  }
  Term At(const Tuple& at, const SymState& s) {
    std::vector<Term> same;
    for (std::uint32_t i = 0; i < at.size(); ++i) {
      same.push_back(s_.Eq(s_.Select(s.pc, s_.Num(i)), s_.Num(at[i])));
    }
    return s_.And(same);
  }
  // s is at a listed tuple and satisfies its formula. With `from`: only the tuples that agree
  // with it but at thread `mover` (the others after a step of that thread from `from`).
  Term Covered(const SymState& s, const Tuple* from = nullptr, std::uint32_t mover = 0) {
    std::vector<Term> options;
    for (std::size_t k = 0; k < invariant_.size(); ++k) {
      const Tuple& at = invariant_[k].at;
      if (from != nullptr && !SameBut(at, *from, mover)) continue;
      options.push_back(s_.And({At(at, s), enc_.Eval(*Formula(k), s, count_, count_.zero)}));
    }
    return s_.Or(options);
  }
  static bool SameBut(const Tuple& a, const Tuple& b, std::uint32_t i) {
    for (std::uint32_t j = 0; j < a.size(); ++j) {
      if (j != i && a[j] != b[j]) return false;
    }
    return true;
  }
  const Expr* Formula(std::size_t k) const {
    return p_.abstractions.back().predicates[k].expr.get();
  }
  bool Unsat(const std::vector<Term>& parts) {
    if (limits_ != nullptr && limits_->Check()) {
      undecided_ = " (undecided: " + *limits_->Check() + ")";
      return false;
    }
    ++queries_;
    s_.Push();
    s_.Assert(s_.And(parts));
    const SatResult r = s_.Check();
    s_.Pop();
    if (r == SatResult::kUnknown) undecided_ = " (undecided: " + s_.ReasonUnknown() + ")";
    return r == SatResult::kUnsat;
  }

  const Program& p_;
  const std::vector<LocatedFormula>& invariant_;
  std::unique_ptr<Solver> solver_;
  Solver& s_;
  Encoder enc_;
  ThreadCount count_;
  LimitWatch* limits_;
  std::uint64_t queries_ = 0;
  std::string undecided_;
};

}  // namespace

InvariantCheck CheckInvariant(const std::string& source, const Program& program,
                              std::uint32_t threads, bool deadlock,
                              const std::vector<LocatedFormula>& invariant, unsigned timeout_ms,
                              LimitWatch* limits) {
  const Stopwatch clock;
  InvariantCheck out;
  Program with;
  try {
    with = ParseProgram(source + "\n" + InvariantBlock(invariant), program.file);
  } catch (const InputError& e) {
    out.why = std::string("the invariant's text does not parse: ") + e.what();
    return out;
  }
  Conditions conditions(with, threads, invariant, timeout_ms, limits);
  out.why = conditions.Initial();
  for (std::size_t k = 0; k < invariant.size() && out.why.empty(); ++k) {
    out.why = conditions.Steps(k);
    if (out.why.empty() && (deadlock || program.check_deadlock)) out.why = conditions.Deadlock(k);
  }
  out.holds = out.why.empty();
  out.queries = conditions.queries();
  out.seconds = clock.Seconds();
  return out;
}

std::string InvariantCertificate(const std::string& digest, std::uint32_t threads, bool deadlock,
                                 const std::vector<LocatedFormula>& invariant) {
  nlohmann::ordered_json locations = nlohmann::ordered_json::array();
  for (const LocatedFormula& f : invariant) locations.push_back(f.at);
  const nlohmann::ordered_json doc = {{"druba_certificate", 1},
                                      {"kind", "drb invariant"},
                                      {"digest", digest},
                                      {"threads", threads},
                                      {"proof", "invariant"},
                                      {"deadlock", deadlock},
                                      {"abstraction", InvariantBlock(invariant)},
                                      {"locations", locations}};
  return doc.dump(1) + "\n";
}

}  // namespace druba::predabs
