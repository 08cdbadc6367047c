#include "predabs/ordered_invariant.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/diagnostics.h"
#include "drb/ordered.h"
#include "predabs/encoder.h"
#include "predabs/model.h"
#include "predabs/solver.h"

namespace druba::predabs {
namespace {

// Houdini at first, first + 1 threads first, and at first + 2 too while more than
// kManyCandidates are left or an instance was stopped by its budget (ground queries: cheaper than
// the symbolic ones for as many).
constexpr std::uint32_t kOrderedFixedCounts = 2;
constexpr std::size_t kManyCandidates = 300;
// Houdini::Grounded: rounds of instantiation, and the largest count whose models it checks.
constexpr int kGroundRounds = 3;
constexpr unsigned kGroundTimeoutMs = 2000;  // each of its queries
constexpr std::uint32_t kGroundCount = 8;
// Counterexamples to induction kept per Houdini run, rounds of candidates that block them, and
// such candidates in all, at most.
constexpr std::size_t kMaxCtis = 48;
constexpr int kBlockRounds = 24;
constexpr std::size_t kMaxBlocking = 160;

// A counterexample to induction: the state a step starts from, and the blocking candidates
// (cube_candidates.h) that step broke.
struct Cti {
  ConcreteState state;
  std::vector<std::size_t> dropped;
};

// The symbolic checks of step 3 (see the header), over `program` with the candidates as the
// predicates of its last abstraction block.
class Houdini {
 public:
  // At `fixed` threads, or with `fixed` empty for every count >= `first`; `alive` marks the
  // candidates still in.
  // Candidates from `derived` on block counterexamples to induction (cube_candidates.h): where
  // one is dropped, or a failure is not excluded, the state the step starts from is kept (ctis()).
  Houdini(const Program& program, std::optional<std::uint32_t> fixed, std::uint32_t first,
          std::vector<bool> alive, std::size_t derived, unsigned timeout_ms, LimitWatch* limits)
      : p_(program),
        solver_(MakeZ3Solver(timeout_ms)),
        s_(*solver_),
        enc_(program, s_),
        ids_(drb::IdHolders(program)),
        limits_(limits),
        alive_(std::move(alive)),
        derived_(derived) {
    count_ = fixed ? enc_.Fixed(*fixed) : enc_.Ordered(first, facts_);
    for (const Predicate& pred : p_.abstractions.back().predicates) {
      enc_.TrackCounts(*pred.expr);
      global_.push_back(!drb::NamesSelf(*pred.expr));
      const Expr& e = *pred.expr;
      own_.push_back(e.kind == Expr::Kind::kForall ? drb::OwnStatesOnly(*e.args[0])
                                                   : drb::OwnStatesOnly(e));
    }
  }

  // Drops the candidates that fail in some initial state; false when undecided.
  bool Initial() {
    const SymState s0 = enc_.FreshState("init", count_);
    return Prune({enc_.Initial(s0, count_)}, s0, std::nullopt);
  }
  // Drops candidates until a step of every statement from a state that satisfies them all keeps
  // them all. `*failure` names a statement that can still fail. False when undecided.
  bool Steps(std::string* failure) {
    const ThreadTemplate& tt = p_.templates[0];
    // How many candidates were left when a step of the statement from a state that satisfies
    // them all last kept them all: candidates only go, so with as many left it keeps them still,
    // and is not asked again. Only a query that dropped none says so: one that dropped some
    // assumed the candidates it dropped in the state the step starts from.
    std::vector<std::size_t> kept_at(tt.size, alive_.size() + 1);
    for (bool changed = true; changed;) {
      changed = false;
      for (std::uint32_t stmt = tt.first; stmt < tt.first + tt.size; ++stmt) {
        const std::size_t before = Kept();
        if (kept_at[stmt - tt.first] == before) continue;
        const SymState pre = enc_.FreshState("s", count_);
        const SymState post = enc_.FreshState("t", count_);
        const Term t = enc_.FreshThread(count_, "t");
        const Term failed = s_.Eq(s_.Select(post.pc, t), s_.Num(p_.error_pc));
        const bool writes_others = drb::WritesOthers(p_.statements[stmt].body);
        Hypothesis hyp{&pre, {t}, {}};
        std::vector<const Expr*> indices;  // those that name no quantifier's variable
        drb::ThreadIndexExprs(p_.statements[stmt].body, indices);
        for (const Expr* e : indices) {
          if (!drb::NamesBound(*e)) hyp.threads.push_back(enc_.Eval(*e, pre, count_, t));
        }
        for (std::size_t v = 0; v < p_.shared.size(); ++v) {
          if (ids_.shared[v]) hyp.threads.push_back(pre.shared[v]);
        }
        for (std::size_t v = 0; v < p_.locals.size(); ++v) {
          if (ids_.locals[v]) hyp.threads.push_back(s_.Select(pre.locals[v], t));
        }
        std::vector<Term> context{enc_.WellFormed(pre, count_), enc_.InRange(t, count_),
                                  enc_.Step(stmt, t, pre, post, count_)};
        if (!count_.fixed) {  // ground queries instantiate the invariant at these threads too
          for (const Term u : enc_.QuantifierWitnesses(stmt, t, pre, count_, context)) {
            hyp.threads.push_back(u);
          }
        }
        if (!Prune(std::move(context), post, failed,
                   writes_others ? std::nullopt : std::optional<Term>(t), &hyp)) {
          return false;
        }
        if (failed_) {
          *failure = p_.statements[stmt].label;
          return true;
        }
        if (Kept() == before) {
          kept_at[stmt - tt.first] = before;
        } else {
          changed = true;
        }
      }
    }
    return true;
  }

  std::vector<bool> alive() const { return alive_; }
  const std::vector<Cti>& ctis() const { return ctis_; }
  std::uint64_t queries() const { return queries_; }
  const std::string& undecided() const { return undecided_; }

 private:
  std::size_t Kept() const {
    return static_cast<std::size_t>(std::count(alive_.begin(), alive_.end(), true));
  }
  const Predicate& Candidate(std::size_t c) const { return p_.abstractions.back().predicates[c]; }

  // The state a step starts from, which satisfies the candidates left, and the threads the step
  // names (the one that moves, those it reads or writes the entries of).
  struct Hypothesis {
    const SymState* pre = nullptr;
    std::vector<Term> threads;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs;  // and these pairs of threads
  };

  // The candidates left that name `self`, at viewer k and (those over pairs) thread j; the ones
  // over one thread only with `first_j`.
  Term PairInvariant(const SymState& s, Term k, Term j, bool first_j) {
    std::vector<Term> all;
    for (std::size_t c = 0; c < alive_.size(); ++c) {
      if (!alive_[c] || global_[c]) continue;
      const Expr& e = *Candidate(c).expr;
      if (e.kind == Expr::Kind::kForall) {
        all.push_back(Pair(e, s, k, j));
      } else if (first_j) {
        all.push_back(enc_.Eval(e, s, count_, k));
      }
    }
    return s_.And(all);
  }

  // Asks `context`, whose entry `at` is the invariant over the state hyp.pre, with the invariant
  // at the pairs of hyp.threads only. Unsatisfiable so: unsatisfiable (those instances are
  // implied). A model of it whose count is small and that satisfies the invariant at every pair
  // of its threads is a model of the whole query: kSat, the model kept. Otherwise the pairs it
  // breaks join the instances and it asks again, a few times; then kUnknown (ask with the
  // quantifier). Model-based instantiation, done here where the threads are integers.
  SatResult Grounded(std::vector<Term> context, std::size_t at, Hypothesis& hyp) {
    ground_threads_.reset();
    for (int round = 0; round < kGroundRounds; ++round) {
      context[at] = Invariant(*hyp.pre, &hyp);
      const SatResult r = s_.CheckAlone(context, kGroundTimeoutMs);
      if (r != SatResult::kSat) return r == SatResult::kUnsat ? r : SatResult::kUnknown;
      const Int n = s_.ModelInt(count_.n);
      if (n > kGroundCount) return SatResult::kUnknown;
      const auto threads = static_cast<std::uint32_t>(n);
      bool holds = true;
      for (std::uint32_t k = 0; k < threads; ++k) {
        for (std::uint32_t j = 0; j < threads; ++j) {
          if (s_.ModelBool(PairInvariant(*hyp.pre, s_.Num(k), s_.Num(j), j == 0))) continue;
          holds = false;
          hyp.pairs.emplace_back(k, j);
        }
      }
      if (holds) {
        ground_threads_ = threads;
        return SatResult::kSat;
      }
    }
    return SatResult::kUnknown;
  }

  // Every thread satisfies every candidate left: one quantifier over pairs of threads (k, j),
  // expanded at a fixed count; with `at`, only at the pairs of its threads and its pairs of
  // numbered threads (weaker: a query that is unsatisfiable with it is with the whole invariant).
  Term Invariant(const SymState& s, const Hypothesis* at = nullptr) {
    const auto pair = [&](Term k, Term j, bool first_j) { return PairInvariant(s, k, j, first_j); };
    std::vector<Term> all;  // the candidates that name no `self`, once
    for (std::size_t c = 0; c < alive_.size(); ++c) {
      if (alive_[c] && global_[c])
        all.push_back(enc_.Eval(*Candidate(c).expr, s, count_, count_.zero));
    }
    if (at != nullptr) {  // where both are threads: an index may be out of range
      for (std::size_t k = 0; k < at->threads.size(); ++k) {
        for (std::size_t j = 0; j < at->threads.size(); ++j) {
          all.push_back(s_.Implies(
              s_.And({enc_.InRange(at->threads[k], count_), enc_.InRange(at->threads[j], count_)}),
              pair(at->threads[k], at->threads[j], j == 0)));
        }
      }
      for (const auto& [k, j] : at->pairs) {
        all.push_back(s_.Implies(s_.Lt(s_.Num(std::max(k, j)), count_.n),
                                 pair(s_.Num(k), s_.Num(j), j == 0)));
      }
      return s_.And(all);
    }
    if (count_.fixed) {
      for (std::uint32_t k = 0; k < *count_.fixed; ++k) {
        for (std::uint32_t j = 0; j < *count_.fixed; ++j) {
          all.push_back(pair(s_.Num(k), s_.Num(j), j == 0));
        }
      }
      return s_.And(all);
    }
    const Term k = enc_.FreshThread(count_, "k");
    const Term j = enc_.FreshThread(count_, "j");
    const Term body =
        s_.Implies(s_.And({enc_.InRange(k, count_), enc_.InRange(j, count_)}), pair(k, j, true));
    all.push_back(s_.Quantify(true, k, s_.Quantify(true, j, body)));
    return s_.And(all);
  }

  // With `context`: drops every candidate some thread of `s` can fail, asking until none can;
  // `failed` (when given) is asked for beside them, and sets failed_ when it can hold. With the
  // count symbolic each query is asked alone (Solver::CheckAlone): the solver's incremental mode
  // handles these quantifiers far worse; at a fixed count, CheckScoped.
  // `mover`: the thread that stepped, when it wrote no other thread's entry.
  // `hyp`: the invariant holds in the state the step starts from; where the count is symbolic, each
  // query is first asked with it instantiated at the threads of the step and of the break, and
  // with the quantified invariant only where that one is satisfiable.
  bool Prune(std::vector<Term> context, const SymState& s, std::optional<Term> failed,
             std::optional<Term> mover = std::nullopt, Hypothesis* hyp = nullptr) {
    for (const Term f : facts_) context.push_back(f);
    // One pair of threads (v, w) for every candidate: "some candidate breaks at some pair" is
    // "at some pair some candidate breaks", and the solver then meets two threads, not two per
    // candidate (each one more term to instantiate the invariant with).
    const Term v = enc_.FreshThread(count_, "v");
    const Term w = enc_.FreshThread(count_, "w");
    context.push_back(enc_.InRange(v, count_));
    context.push_back(enc_.InRange(w, count_));
    const bool grounded = hyp != nullptr && !count_.fixed;
    const std::size_t invariant_at = context.size();
    if (hyp != nullptr) context.push_back(Invariant(*hyp->pre));
    if (grounded) {
      hyp->threads.push_back(v);
      hyp->threads.push_back(w);
    }
    std::vector<std::pair<std::size_t, Term>> breaks;
    for (std::size_t c = 0; c < alive_.size(); ++c) {
      if (alive_[c]) breaks.emplace_back(c, Break(c, s, v, w, own_[c] ? mover : std::nullopt));
    }
    const auto ask = [&](Term goal) {
      if (limits_ != nullptr && limits_->Check()) {
        undecided_ = *limits_->Check();
        return SatResult::kUnknown;
      }
      ++queries_;
      std::vector<Term> all = context;
      all.push_back(goal);
      if (grounded) {
        const SatResult weak = Grounded(all, invariant_at, *hyp);
        model_threads_ = ground_threads_;
        if (weak != SatResult::kUnknown) return weak;
        all[invariant_at] = context[invariant_at];
      }
      const SatResult r = count_.fixed ? CheckScoped(all) : s_.CheckAlone(all);
      model_threads_ = count_.fixed;
      if (r == SatResult::kUnknown) undecided_ = s_.ReasonUnknown();
      return r;
    };
    for (;;) {
      std::vector<Term> any;
      if (failed) any.push_back(*failed);
      for (const auto& [c, b] : breaks) {
        if (alive_[c]) any.push_back(b);
      }
      if (any.empty()) return true;
      const SatResult r = ask(s_.Or(any));
      if (r == SatResult::kUnknown) return false;
      if (r == SatResult::kUnsat) return true;
      if (failed && s_.ModelBool(*failed)) {
        Capture(hyp, {}, true);
        failed_ = true;
        return true;
      }
      bool dropped = DropBroken(breaks, hyp);
      // The model breaks a candidate that its evaluation could not name (a quantifier the model
      // does not decide): ask for each one alone.
      for (const auto& [c, b] : breaks) {
        if (dropped) break;
        if (!alive_[c]) continue;
        const SatResult one = ask(b);
        if (one == SatResult::kUnknown) return false;
        if (one == SatResult::kSat) {
          if (c >= derived_) Capture(hyp, {c});
          alive_[c] = false;
          dropped = true;
        }
      }
      if (!dropped) {
        undecided_ = "a model breaks the candidates, but none of them alone";
        return false;
      }
    }
  }

  // At a fixed count (quantifiers expanded) the solver's incremental mode, pushed and popped, is
  // faster than a solver of the query's own: Lamport's fast mutex 34 s -> 19 s, Burns 3.7 ->
  // 2.1 s, Eisenberg-McGuire 45 -> 35 s (one run each).
  SatResult CheckScoped(const std::vector<Term>& all) {
    s_.Push();
    for (const Term f : all) s_.Assert(f);
    const SatResult r = s_.Check();
    s_.Pop();
    return r;
  }

  // Drops the candidates the solver's last model breaks; whether there were any.
  bool DropBroken(const std::vector<std::pair<std::size_t, Term>>& breaks, const Hypothesis* hyp) {
    std::vector<std::size_t> dropped;
    for (const auto& [c, b] : breaks) {
      if (alive_[c] && s_.ModelBool(b)) {
        alive_[c] = false;
        dropped.push_back(c);
      }
    }
    std::vector<std::size_t> derived;
    std::copy_if(dropped.begin(), dropped.end(), std::back_inserter(derived),
                 [&](std::size_t c) { return c >= derived_; });
    if (!derived.empty()) Capture(hyp, std::move(derived));
    return !dropped.empty();
  }

  // Keeps the state the step of `hyp` starts from in the solver's last model, where that model
  // has a known number of threads (a fixed count, or a ground query's).
  // `always`: past kMaxCtis too (the failure's).
  void Capture(const Hypothesis* hyp, std::vector<std::size_t> dropped, bool always = false) {
    if (hyp == nullptr || !model_threads_ || (ctis_.size() >= kMaxCtis && !always)) return;
    Cti cti;
    cti.dropped = std::move(dropped);
    ConcreteState& c = cti.state;
    c.threads = *model_threads_;
    const SymState& pre = *hyp->pre;
    for (std::uint32_t k = 0; k < c.threads; ++k) {
      c.pc.push_back(static_cast<std::int64_t>(s_.ModelInt(s_.Select(pre.pc, s_.Num(k)))));
    }
    for (const Term local : pre.locals) {
      for (std::uint32_t k = 0; k < c.threads; ++k) {
        c.locals.push_back(s_.ModelInt(s_.Select(local, s_.Num(k))));
      }
    }
    for (const Term v : pre.shared) c.shared.push_back(s_.ModelInt(v));
    c.mover = static_cast<std::uint32_t>(s_.ModelInt(hyp->threads[0]));
    ctis_.push_back(std::move(cti));
  }

  // `forall j: body` (`forall j != self: body`) at viewer k for thread j: its body there (true
  // where j is k and the quantifier leaves the viewer out).
  Term Pair(const Expr& e, const SymState& s, Term k, Term j) {
    const Term body = enc_.Instance(e, s, count_, k, j);
    return e.exclude_self ? s_.Or({s_.Eq(j, k), body}) : body;
  }

  // Some thread (and for a candidate over pairs, some thread j) of `s` falsifies candidate c;
  // with `mover`, one of them is that thread.
  Term Break(std::size_t c, const SymState& s, Term v, Term w, std::optional<Term> mover) {
    const Expr& e = *Candidate(c).expr;
    std::vector<Term> broken;
    if (e.kind == Expr::Kind::kForall) {
      broken.push_back(s_.Not(Pair(e, s, v, w)));
      if (mover) broken.push_back(s_.Or({s_.Eq(v, *mover), s_.Eq(w, *mover)}));
    } else {
      if (mover) broken.push_back(s_.Eq(v, *mover));
      broken.push_back(s_.Not(enc_.Eval(e, s, count_, v)));
    }
    return s_.And(broken);
  }

  const Program& p_;
  std::unique_ptr<Solver> solver_;
  Solver& s_;
  Encoder enc_;
  drb::IdVariables ids_;  // the variables that hold thread ids
  LimitWatch* limits_;
  std::vector<Term> facts_;
  ThreadCount count_;
  std::vector<bool> alive_;
  std::vector<bool> global_;  // names no `self`
  // Reads the own states (locations, per-thread variables) of `self` and the pair's other thread
  // only: a step of a thread that writes no other thread's entry breaks it only where that
  // thread is one of them.
  std::vector<bool> own_;
  std::size_t derived_;  // candidates from here on block counterexamples to induction
  std::vector<Cti> ctis_;
  std::optional<std::uint32_t> model_threads_;   // the last model's thread count, where known
  std::optional<std::uint32_t> ground_threads_;  // the last ground query's
  bool failed_ = false;
  std::uint64_t queries_ = 0;
  std::string undecided_;
};

}  // namespace

std::string OrderedInvariantBlock(const std::vector<std::string>& invariant) {
  std::string out = "abstraction druba_ordered {\n";
  for (std::size_t i = 0; i < invariant.size(); ++i) {
    out += fmt::format("  predicate c{}: {};\n", i, invariant[i]);
  }
  return out + "}\n";
}

std::string OrderedCertificate(const std::string& digest, std::uint32_t first,
                               const std::vector<std::string>& invariant) {
  std::vector<int> all(invariant.size(), 1);
  all.push_back(0);  // no thread failed
  const nlohmann::ordered_json doc = {{"druba_certificate", 1},
                                      {"kind", "drb predicates"},
                                      {"digest", digest},
                                      {"threads", first},
                                      {"proof", "invariant"},
                                      {"deadlock", false},
                                      {"every_count", true},
                                      {"thread_ids", "ordered"},
                                      {"abstraction", OrderedInvariantBlock(invariant)},
                                      {"abstract_states", {all}}};
  return doc.dump(1) + "\n";
}

namespace {

// Houdini over `with`'s candidates still `alive`: at fixed counts first (ground queries, fast),
// where most candidates that are not inductive show it, then for every count at once. False when
// undecided; `failure` names a statement whose failure is not excluded, `ctis` the states where
// steps broke what the candidates from `derived` on needed.
bool Settle(const Program& with, std::uint32_t first, std::size_t derived, unsigned timeout_ms,
            LimitWatch* limits, std::vector<bool>& alive, std::string& failure,
            std::vector<Cti>& ctis, OrderedFigures& f) {
  // An instance the state budget stopped proposes candidates that only its part of the states
  // keeps; a larger count drops those at fixed counts, where the queries are cheap.
  const bool partial = std::any_of(f.instances.begin(), f.instances.end(),
                                   [](const OrderedFigures::Instance& i) { return !i.complete; });
  const auto many = [&] {
    return partial ||
           static_cast<std::size_t>(std::count(alive.begin(), alive.end(), true)) > kManyCandidates;
  };
  const auto run = [&](std::optional<std::uint32_t> fixed) {
    Houdini h(with, fixed, first, alive, derived, timeout_ms, limits);
    const bool decided = h.Initial() && h.Steps(&failure);
    f.queries += h.queries();
    alive = h.alive();
    ctis.insert(ctis.end(), h.ctis().begin(), h.ctis().end());
    if (!decided) f.undecided = h.undecided();
    return decided;
  };
  for (std::uint32_t n = first; n <= first + kOrderedFixedCounts && (n < first + 2 || many());
       ++n) {
    if (!run(n)) return false;
    if (!failure.empty()) return true;
  }
  return run(std::nullopt);
}

// What Strengthen works on.
struct Work {
  const std::string& source;
  const Program& program;
  std::uint32_t first;
  unsigned timeout_ms;
  LimitWatch* limits;
};

// Houdini over `candidates` (Settle); then, while a failure is not excluded, candidates that
// block the counterexamples to induction it met (cube_candidates.h) join them, and Houdini runs
// again. Whether it was decided (see Settle), `alive` marking the candidates kept; none when the
// candidates do not parse (`reason` says why).
std::optional<bool> Strengthen(const Work& w, CandidateReader& reader,
                               std::vector<std::string>& candidates, std::vector<bool>& alive,
                               std::string& failure, std::string& reason, OrderedFigures& f) {
  alive.assign(candidates.size(), true);
  std::set<std::string> known(candidates.begin(), candidates.end());
  std::vector<bool> refuted;  // [c - derived]
  const std::size_t derived = candidates.size();
  for (int round = 0;; ++round) {
    Program with;
    try {
      with = ParseProgram(w.source + "\n" + OrderedInvariantBlock(candidates), w.program.file);
    } catch (const InputError& e) {
      reason = std::string("the candidates do not parse: ") + e.what();
      return std::nullopt;
    }
    failure.clear();
    // Houdini's answer is the greatest subset of the candidates that is inductive: each round
    // starts from every blocking candidate, those dropped in a round before too, but not those
    // dropped from a state like a reached one (they most likely do not hold).
    for (std::size_t c = derived; c < candidates.size(); ++c) alive[c] = !refuted[c - derived];
    std::vector<Cti> ctis;
    const bool decided =
        Settle(with, w.first, derived, w.timeout_ms, w.limits, alive, failure, ctis, f);
    if (!decided || failure.empty() || round == kBlockRounds) return decided;
    std::size_t added = 0;
    for (const Cti& cti : ctis) {
      bool seen = false;
      for (std::string& text : reader.Blocker().Block(cti.state, &seen)) {
        if (candidates.size() - derived < kMaxBlocking && known.insert(text).second) {
          candidates.push_back(std::move(text));
          alive.push_back(true);
          refuted.push_back(false);
          ++added;
        }
      }
      for (const std::size_t c : cti.dropped) refuted[c - derived] = refuted[c - derived] || seen;
    }
    f.blocking += added;
    f.blocking_rounds += added == 0 ? 0 : 1;
    if (added == 0) return decided;
  }
}

}  // namespace

OrderedResult ProveEveryOrderedCount(const std::string& source, const Program& program,
                                     std::uint32_t first, std::uint32_t last, unsigned timeout_ms,
                                     LimitWatch* limits, const std::vector<std::string>& given) {
  const Stopwatch clock;
  OrderedResult out;
  OrderedFigures& f = out.figures;
  CandidateReader reader(program);
  // After an instance the budget stopped (values that grow without bound), the larger ones are
  // explored too, with an eighth of it: what only three or four threads show (another thread's
  // entry set while one scans) is what keeps candidates true of two threads alone out.
  std::uint64_t budget = kOrderedInstanceStates;
  for (std::uint32_t n = first; n <= last; ++n) {
    f.instances.emplace_back();
    if (reader.Explore(n, limits, f.instances.back(), budget)) {
      out.verdict = Verdict::kViolation;
      out.violation_at = n;
      out.reason = fmt::format("a thread fails at {} threads", n);
      f.seconds = clock.Seconds();
      return out;
    }
    if (!f.instances.back().complete) budget = kOrderedInstanceStates / 8;
  }
  std::vector<std::string> candidates = reader.Candidates();
  candidates.insert(candidates.end(), given.begin(), given.end());
  f.given = given.size();
  std::vector<bool> alive;
  std::string failure;
  const std::optional<bool> decided = Strengthen({source, program, first, timeout_ms, limits},
                                                 reader, candidates, alive, failure, out.reason, f);
  if (!decided) return out;  // the candidates do not parse
  f.candidates = candidates.size();
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    if (alive[c]) out.invariant.push_back(candidates[c]);
  }
  f.dropped = candidates.size() - out.invariant.size();
  f.seconds = clock.Seconds();
  if (!*decided) {
    out.reason =
        "the solver could not decide whether the candidates read off the finite "
        "instances are inductive for every count (" +
        f.undecided + ")";
  } else if (!failure.empty()) {
    out.reason = fmt::format(
        "the {} candidates read off {} to {} threads that hold for every count do not exclude a "
        "failure at {}",
        out.invariant.size(), first, f.instances.back().threads, failure);
  } else {
    out.verdict = Verdict::kSafe;
    out.reason = fmt::format(
        "safe for every thread count >= {}: {} invariants read off the program at {} to {} "
        "threads{} hold initially and after every step at every count, and exclude every failure",
        first, out.invariant.size(), first, f.instances.back().threads,
        f.blocking == 0 ? "" : " (and blocking counterexamples to induction)");
  }
  return out;
}

}  // namespace druba::predabs
