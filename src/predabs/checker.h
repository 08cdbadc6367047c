// The solver side of predicate abstraction (predabs/predicate_abstraction.h): one thread count
// (fixed) or every count from a least one, the respect classes, the abstract successors of a
// state under one action, the admitted states, and the initial abstract states, each decided by
// queries over the encoding of smt/encoder.h. Shared by the abstraction (predicate_abstraction.cc)
// and the closure test across thread counts (all_counts.cc).
#pragma once

#include <fmt/format.h>
#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/resources.h"
#include "predabs/predicate_abstraction.h"
#include "smt/encoder.h"
#include "smt/solver.h"

namespace druba::predabs {

// Whether `body` chooses a value of an int or a nat (`x := *`).
inline bool ChoosesInteger(const Program& program, const std::vector<Instr>& body) {
  for (const Instr& op : body) {
    for (std::size_t i = 0; i < op.exprs.size(); ++i) {
      if (op.exprs[i]->kind != Expr::Kind::kHavoc) continue;
      if (drb::TargetVariable(program, op.targets[i]).type != Type::kBool) return true;
    }
    for (const std::vector<Instr>& block : op.blocks) {
      if (ChoosesInteger(program, block)) return true;
    }
  }
  return false;
}

// The solver side of the abstraction, for one thread count (fixed) or all counts >= min.
class Checker {
 public:
  // `shared` (null: a solver of its own) lends a solver, so that many short-lived checkers
  // share one solver context.
  Checker(const Program& program, const AbstractionSpec& spec, std::optional<std::uint32_t> fixed,
          std::uint32_t min_threads, unsigned timeout_ms, SolverStats* stats, LimitWatch* limits,
          const SolverLog* log, Solver* shared = nullptr)
      : program_(program),
        spec_(spec),
        fixed_(fixed),
        min_(min_threads),
        solver_(shared != nullptr ? nullptr : MakeZ3Solver(timeout_ms)),
        s_(shared != nullptr ? *shared : *solver_),
        lent_mark_(s_.num_terms()),
        enc_(program, s_),
        stats_(stats),
        symmetric_(program.symmetric && spec.symmetric),
        timeout_ms_(timeout_ms),
        limits_(limits),
        log_(log != nullptr && *log ? log : nullptr) {
    s_.WatchLimits(limits);
    for (const Predicate& p : spec.predicates) enc_.TrackCounts(*p.expr);
  }
  Checker(const Checker&) = delete;
  Checker& operator=(const Checker&) = delete;
  // A lent solver keeps none of this checker's terms (refinement lends one to thousands of
  // checkers: it held 2 GB of terms after 100 s of the ticket lock by difference, and freeing
  // them took 4 s after a signal).
  ~Checker() {
    if (solver_ != nullptr) return;
    s_.ForgetTermsFrom(lent_mark_);
    s_.WatchLimits(nullptr);
  }

  std::vector<ActionClass> Classify() {
    std::vector<ActionClass> out;
    const auto add = [&](std::uint32_t stmt, std::uint32_t thread, bool other) {
      ActionClass c{stmt, thread, other, false, false};
      // The explicit search takes some of the values a statement chooses (`x := *` of an
      // integer), and may never see it enabled: only the closure test's query covers them all.
      if (ChoosesInteger(program_, program_.statements[stmt].body)) {
        out.push_back(c);
        return;
      }
      const SatResult r = RespectQuery(c);
      c.respects = r == SatResult::kUnsat;
      c.undecided = r == SatResult::kUnknown;
      out.push_back(c);
    };
    const auto num_statements = static_cast<std::uint32_t>(program_.statements.size());
    if (symmetric_) {
      for (std::uint32_t stmt = 0; stmt < num_statements; ++stmt) add(stmt, 0, false);
      if (!fixed_ || *fixed_ >= 2) {
        for (std::uint32_t stmt = 0; stmt < num_statements; ++stmt) add(stmt, 1, true);
      }
    } else {
      if (!fixed_) throw std::logic_error("Checker: a symbolic thread count needs symmetry");
      std::uint32_t thread = 0;
      for (const ThreadTemplate& t : program_.templates) {
        const std::uint32_t copies = program_.templates.size() == 1 ? *fixed_ : t.count;
        for (std::uint32_t c = 0; c < copies; ++c, ++thread) {
          for (std::uint32_t stmt = t.first; stmt < t.first + t.size; ++stmt) {
            add(stmt, thread, false);
          }
        }
      }
    }
    return out;
  }

  // All abstract successors of `abstract` under `c`; false (and *why) when undecided. With a
  // symbolic thread count the view invariant is first assumed for the acting thread only
  // (quantifier-free and fast); only when that admits a successor outside `reached` is the
  // query repeated with every thread's view (quantified, more precise, slower). Both are sound:
  // a weaker assumption only admits more successors. `known` (default: `reached`) is the set
  // a successor must lie outside of to escape: the closure test's completion asks with the views
  // of the reached set and knows a grown set, whose states need no more precise query.
  bool Enumerate(const ActionClass& c, StateView abstract, const StateStore* reached,
                 std::vector<std::vector<Word>>* out, std::string* why,
                 const StateStore* known = nullptr) {
    if (known == nullptr) known = reached;
    if (abstract.back() != 0) return true;  // failed states are not expanded
    if (!c.other && !TrackedPcAllows(c, abstract)) return true;
    // Tries from the cheapest: the acting thread's view with counts related to one witness, then
    // to two (drb/counting.h; only where counts are tracked), then every view.
    struct Try {
      bool all_views;
      std::uint32_t witnesses;
    };
    std::vector<Try> tries{{true, 2}};
    if (!fixed_ && reached != nullptr && symmetric_) {
      tries = {{false, 2}, {true, 2}};
      if (enc_.TracksCounts()) tries.insert(tries.begin(), Try{false, 1});
    }
    SatResult r = SatResult::kUnknown;
    for (const Try& t : tries) {
      std::vector<std::vector<Word>> found;
      const auto ask = [&] {
        return EnumerateWith(c, abstract, reached, t.all_views, t.witnesses, &found);
      };
      // After a decided try, a more precise one only sharpens a sound answer: it gets a bounded
      // share of the solver's work (deterministic, unlike the timeout it used to run into).
      const SatResult now = r == SatResult::kUnknown ? ask() : WithinWork(kSharperTryWork, ask);
      if (now != SatResult::kUnknown || r == SatResult::kUnknown) {
        *out = std::move(found);
        r = now;
      }
      const bool escapes = r == SatResult::kUnknown ||
                           std::any_of(out->begin(), out->end(),
                                       [&](const auto& to) { return !known->Find(StateView(to)); });
      if (!escapes) break;
    }
    if (r != SatResult::kUnknown) return true;
    *why =
        (stopped_.empty() ? "the solver returned unknown (" + s_.ReasonUnknown() + ")" : stopped_) +
        " for the abstract successors of " + DescribeAbstract(program_, spec_, abstract) +
        " under " + DescribeClass(c);
    return false;
  }

  // Whether some well-formed state (whose every view lies in `reached`) has the abstraction
  // `abstract` (and meets what `also` adds; `what` names the query in the solver log).
  using Extra = std::function<void(const SymState&, const ThreadCount&, std::vector<Term>&)>;
  SatResult Admits(StateView abstract, const StateStore& reached,
                   const std::string& what = "admits ", const Extra& also = nullptr) {
    phase_ = what + DescribeAbstract(program_, spec_, abstract);
    enc_.SetCountWitnesses(2);
    std::vector<Term> k;
    const ThreadCount count = Count(k);
    const SymState pre = enc_.FreshState("s", count);
    AdmittedBy(pre, count, abstract, reached, k);
    if (also) also(pre, count, k);
    return CheckAll(k);
  }

  // Whether a well-formed state with the abstraction `abstract` (every thread's view in `reached`
  // for a symmetric program) has every thread blocked and some thread unfinished (fixed counts).
  SatResult Deadlock(StateView abstract, const StateStore& reached) {
    return Admits(abstract, reached, "deadlock in ",
                  [&](const SymState& pre, const ThreadCount& count, std::vector<Term>& k) {
                    AllBlocked(pre, count, k);
                  });
  }

  // Every thread blocked (no statement enabled) and some thread unfinished (fixed counts).
  void AllBlocked(const SymState& pre, const ThreadCount& count, std::vector<Term>& k) {
    std::vector<Term> unfinished;
    std::uint32_t thread = 0;
    for (const ThreadTemplate& t : program_.templates) {
      const std::uint32_t copies = program_.templates.size() == 1 ? *fixed_ : t.count;
      for (std::uint32_t c = 0; c < copies; ++c, ++thread) {
        const Term actor = enc_.ThreadNumber(count, thread);
        const Term pc = s_.Select(pre.pc, actor);
        for (std::uint32_t stmt = t.first; stmt < t.first + t.size; ++stmt) {
          const Term here = s_.Eq(pc, s_.Num(stmt));
          k.push_back(s_.Implies(here, s_.Not(enc_.Enabled(stmt, actor, pre, count))));
          if (!program_.statements[stmt].label.starts_with("end")) unfinished.push_back(here);
        }
      }
    }
    k.push_back(s_.Or(unfinished));
  }

  bool InitialStates(std::vector<std::vector<Word>>* out, std::string* why) {
    std::vector<Term> constraints;
    const ThreadCount count = Count(constraints);
    const SymState st = enc_.FreshState("init", count);
    constraints.push_back(enc_.Initial(st, count));
    const std::vector<Term> alpha = Alpha(st, count, count.zero, s_.BoolValue(false));
    if (AllSat(constraints, alpha, out) == SatResult::kUnknown) {
      *why = (stopped_.empty() ? "the solver returned unknown (" + s_.ReasonUnknown() + ")"
                               : stopped_) +
             " for the abstract initial states";
      return false;
    }
    return true;
  }

  // From now on the queries spend at most `units` of the solver's Work between them; then each is
  // undecided ("the work budget was spent"), as one the time limit stops is.
  void BudgetWork(std::uint64_t units) { work_left_ = units; }

  // The solver's work a try more precise than a decided one may spend (Enumerate): about 2 s.
  static constexpr std::uint64_t kSharperTryWork = 4'000'000;

  std::string DescribeClass(const ActionClass& c) const {
    const Statement& s = program_.statements[c.stmt];
    const std::string who = c.other ? "another thread" : "thread " + std::to_string(c.thread);
    return who + " executing " + s.label + ": " + s.text + " (line " +
           std::to_string(s.where.line) + ")";
  }

 private:
  ThreadCount Count(std::vector<Term>& constraints) {
    if (fixed_) return enc_.Fixed(*fixed_);
    return enc_.Symbolic(min_, constraints);
  }

  bool TrackedPcAllows(const ActionClass& c, StateView abstract) const {
    for (std::size_t i = 0; i < spec_.pcs.size(); ++i) {
      const std::uint32_t tracked = spec_.pcs[i].thread.value_or(0);
      if (tracked == c.thread && abstract[i] != c.stmt) return false;
    }
    return true;
  }

  Term Actor(const ActionClass& c, const ThreadCount& count, std::vector<Term>& constraints) {
    if (!c.other) return enc_.ThreadNumber(count, c.thread);
    const Term j = enc_.FreshThread(count, "j");
    constraints.push_back(enc_.InRange(j, count));
    constraints.push_back(s_.Not(s_.Eq(j, count.zero)));
    return j;
  }

  std::vector<Term> Alpha(const SymState& st, const ThreadCount& count, Term self, Term err) {
    std::vector<Term> out;
    for (const TrackedPc& pc : spec_.pcs) {
      out.push_back(s_.Select(st.pc, pc.thread ? enc_.ThreadNumber(count, *pc.thread) : self));
    }
    for (const Predicate& p : spec_.predicates) out.push_back(enc_.Eval(*p.expr, st, count, self));
    out.push_back(err);
    return out;
  }
  Term AlphaIs(const std::vector<Term>& alpha, StateView words) {
    std::vector<Term> parts;
    for (std::size_t i = 0; i < spec_.pcs.size(); ++i) {
      parts.push_back(s_.Eq(alpha[i], s_.Num(words[i])));
    }
    for (std::size_t i = spec_.pcs.size(); i < alpha.size(); ++i) {
      parts.push_back(words[i] != 0 ? alpha[i] : s_.Not(alpha[i]));
    }
    return s_.And(parts);
  }
  Term AlphaSame(const std::vector<Term>& a, const std::vector<Term>& b) {
    std::vector<Term> parts;
    for (std::size_t i = 0; i < a.size(); ++i) parts.push_back(s_.Eq(a[i], b[i]));
    return s_.And(parts);
  }
  Term Member(const std::vector<Term>& alpha, const StateStore& reached) {
    std::vector<Term> options;
    for (std::uint32_t id = 0; id < reached.size(); ++id) {
      const StateView b = reached.Get(id);
      if (b.back() == 0) options.push_back(AlphaIs(alpha, b));
    }
    return s_.Or(options);
  }

  SatResult RespectQuery(const ActionClass& c) {
    // Coarser counts (one witness) can only make an action disrespect where it respects: more
    // successors are checked, none is missed.
    enc_.SetCountWitnesses(1);
    std::vector<Term> k;
    const ThreadCount count1 = Count(k);
    const ThreadCount count2 = fixed_ ? count1 : Count(k);
    const SymState pre1 = enc_.FreshState("a", count1);
    const SymState pre2 = enc_.FreshState("b", count2);
    const SymState post1 = enc_.FreshState("a'", count1);
    const SymState post2 = enc_.FreshState("b'", count2);
    k.push_back(enc_.WellFormed(pre1, count1));
    k.push_back(enc_.WellFormed(pre2, count2));
    const Term actor1 = Actor(c, count1, k);
    const Term actor2 = c.other && !fixed_ ? Actor(c, count2, k) : actor1;
    const Term no = s_.BoolValue(false);
    k.push_back(
        AlphaSame(Alpha(pre1, count1, count1.zero, no), Alpha(pre2, count2, count2.zero, no)));
    const auto total = [&](const SymState& pre, const SymState& post, Term actor,
                           const ThreadCount& count) {
      return s_.Or(
          {enc_.Step(c.stmt, actor, pre, post, count),
           s_.And({s_.Not(enc_.Enabled(c.stmt, actor, pre, count)), enc_.SameState(post, pre)})});
    };
    k.push_back(total(pre1, post1, actor1, count1));
    k.push_back(total(pre2, post2, actor2, count2));
    const Term err = s_.Num(program_.error_pc);
    const Term err1 = s_.Eq(s_.Select(post1.pc, actor1), err);
    const Term err2 = s_.Eq(s_.Select(post2.pc, actor2), err);
    k.push_back(s_.Not(AlphaSame(Alpha(post1, count1, count1.zero, err1),
                                 Alpha(post2, count2, count2.zero, err2))));
    phase_ = "respect: " + DescribeClass(c);
    return CheckAll(k);
  }

  SatResult EnumerateWith(const ActionClass& c, StateView abstract, const StateStore* reached,
                          bool all_views, std::uint32_t witnesses,
                          std::vector<std::vector<Word>>* out) {
    phase_ = std::string(all_views ? "successors (all views) of " : "successors of ") +
             DescribeAbstract(program_, spec_, abstract) + " under " + DescribeClass(c);
    enc_.SetCountWitnesses(witnesses);
    std::vector<Term> k;
    const ThreadCount count = Count(k);
    const SymState pre = enc_.FreshState("s", count);
    const SymState post = enc_.FreshState("s'", count);
    k.push_back(enc_.WellFormed(pre, count));
    k.push_back(AlphaIs(Alpha(pre, count, count.zero, s_.BoolValue(false)), abstract));
    const Term actor = Actor(c, count, k);
    if (symmetric_ && reached != nullptr) {
      if (fixed_ || all_views) {
        AssumeViews(pre, count, *reached, k);
      } else if (c.other) {
        k.push_back(Member(Alpha(pre, count, actor, s_.BoolValue(false)), *reached));
      }
    }
    k.push_back(enc_.Step(c.stmt, actor, pre, post, count));
    const Term err = s_.Eq(s_.Select(post.pc, actor), s_.Num(program_.error_pc));
    return AllSat(k, Alpha(post, count, count.zero, err), out);
  }

  // Whether the constraints `k` hold together (one timed query).
  SatResult CheckAll(const std::vector<Term>& k) {
    s_.Push();
    for (const Term t : k) s_.Assert(t);
    const SatResult r = Timed([&] { return s_.Check(); });
    s_.Pop();
    return r;
  }

  // `st` is well formed, has the abstraction `abstract`, and (symmetric programs) every thread's
  // view of it lies in `reached`.
  void AdmittedBy(const SymState& st, const ThreadCount& count, StateView abstract,
                  const StateStore& reached, std::vector<Term>& k) {
    k.push_back(enc_.WellFormed(st, count));
    k.push_back(AlphaIs(Alpha(st, count, count.zero, s_.BoolValue(false)), abstract));
    AssumeViews(st, count, reached, k);
  }

  // The view invariant: every thread's view of `st` lies in `reached` (symmetric programs).
  void AssumeViews(const SymState& st, const ThreadCount& count, const StateStore& reached,
                   std::vector<Term>& k) {
    if (!symmetric_) return;
    const Term no = s_.BoolValue(false);
    if (fixed_) {
      for (std::uint32_t t = 1; t < *fixed_; ++t) {
        k.push_back(Member(Alpha(st, count, s_.Num(t), no), reached));
      }
      return;
    }
    const Term t = enc_.FreshThread(count, "v");
    k.push_back(s_.Quantify(
        true, t, s_.Implies(enc_.InRange(t, count), Member(Alpha(st, count, t, no), reached))));
  }

  // Enumerates the valuations of `alpha` under `constraints`. Each component gets a fresh
  // constant equal to it, and the model is read and blocked on those constants: a model's own
  // evaluation of a quantified formula is not reliable, the constants' values are.
  SatResult AllSat(const std::vector<Term>& constraints, const std::vector<Term>& components,
                   std::vector<std::vector<Word>>* out) {
    s_.Push();
    for (const Term t : constraints) s_.Assert(t);
    std::vector<Term> alpha;
    for (std::size_t i = 0; i < components.size(); ++i) {
      const Term c = i < spec_.pcs.size() ? s_.FreshInt("alpha") : s_.FreshBool("alpha");
      s_.Assert(s_.Eq(c, components[i]));
      alpha.push_back(c);
    }
    SatResult r = SatResult::kSat;
    while ((r = Timed([&] { return s_.Check(); })) == SatResult::kSat) {
      std::vector<Word> words(alpha.size());
      for (std::size_t i = 0; i < spec_.pcs.size(); ++i) {
        words[i] = static_cast<Word>(s_.ModelInt(alpha[i]));
      }
      for (std::size_t i = spec_.pcs.size(); i < alpha.size(); ++i) {
        words[i] = s_.ModelBool(alpha[i]) ? 1 : 0;
      }
      if (log_ != nullptr) {
        (*log_)("druba:   model: " + DescribeAbstract(program_, spec_, StateView(words)));
      }
      s_.Assert(s_.Not(AlphaIs(alpha, StateView(words))));
      out->push_back(std::move(words));
    }
    s_.Pop();
    return r;
  }

  // f() with its queries' work within `units` (and within the budget, if any); then the budget
  // is as before, less what f spent.
  template <class F>
  SatResult WithinWork(std::uint64_t units, F&& f) {
    const std::optional<std::uint64_t> saved = work_left_;
    const std::string stopped = stopped_;
    const std::uint64_t allowed = saved ? std::min(*saved, units) : units;
    work_left_ = allowed;
    const SatResult r = f();
    const std::uint64_t spent = allowed - *work_left_;
    work_left_ = saved;
    if (saved) {
      *work_left_ -= spent;
    } else {
      s_.SetWorkLimit(0);
    }
    if (!saved || *saved > units) stopped_ = stopped;  // its own limit is not the budget's
    return r;
  }

  // A query's time or work limit from what is left: rounded down to a step of 1/16 to 1/32 of it
  // (at least 1), so that it changes only when what is left crosses a step. Z3 takes its global
  // parameter lock and looks every name up again to change a limit, and the exact remainder,
  // which every query lowers, cost 23 % of a small program's refinement (its closure tests run on
  // a work budget and a time budget).
  static std::uint64_t RoundedDown(std::uint64_t left) {
    if (left < 32) return std::max<std::uint64_t>(left, 1);
    const auto shift = static_cast<int>(std::bit_width(left)) - 5;
    return (left >> shift) << shift;
  }

  template <class F>
  SatResult Timed(F&& f) {
    if (limits_ != nullptr) {
      if (const auto why = limits_->Check()) {
        stopped_ = *why;
        return SatResult::kUnknown;
      }
      const double left_ms = limits_->RemainingSeconds() * 1000;
      s_.SetTimeout(left_ms < timeout_ms_
                        ? static_cast<unsigned>(RoundedDown(static_cast<std::uint64_t>(left_ms)))
                        : timeout_ms_);
    }
    if (work_left_) {
      if (*work_left_ == 0) {
        stopped_ = "the work budget was spent";
        return SatResult::kUnknown;
      }
      s_.SetWorkLimit(RoundedDown(*work_left_));
    }
    Stopwatch clock;
    const std::uint64_t work = s_.Work();
    const SatResult r = f();
    ++stats_->queries;
    stats_->seconds += clock.Seconds();
    stats_->work += s_.Work() - work;
    if (work_left_) *work_left_ -= std::min(*work_left_, s_.Work() - work);
    if (log_ != nullptr) {
      (*log_)(fmt::format("druba: solver query {}: {} in {:.3f} s ({})", stats_->queries,
                          r == SatResult::kSat     ? "sat"
                          : r == SatResult::kUnsat ? "unsat"
                                                   : "unknown",
                          clock.Seconds(), phase_));
    }
    return r;
  }
  std::string phase_ = "initial states";
  std::optional<std::uint64_t> work_left_;  // BudgetWork

  const Program& program_;
  const AbstractionSpec& spec_;
  std::optional<std::uint32_t> fixed_;
  std::uint32_t min_;
  std::unique_ptr<Solver> solver_;
  Solver& s_;
  std::size_t lent_mark_;  // the lent solver's terms before this checker's
  Encoder enc_;
  SolverStats* stats_;
  bool symmetric_;  // views of other threads are alpha's own images (see the header)
  unsigned timeout_ms_;
  LimitWatch* limits_;
  const SolverLog* log_;  // null: quiet
  std::string stopped_;   // why a resource limit stopped the solver work
};

}  // namespace druba::predabs
