#include "predabs/ordered_invariant.h"

#include <algorithm>
#include <memory>
#include <optional>
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
// kManyCandidates are left (ground queries: cheaper than the symbolic ones for as many).
constexpr std::uint32_t kOrderedFixedCounts = 2;
constexpr std::size_t kManyCandidates = 300;
// Houdini::Grounded: rounds of instantiation, and the largest count whose models it checks.
constexpr int kGroundRounds = 3;
constexpr unsigned kGroundTimeoutMs = 2000;  // each of its queries
constexpr std::uint32_t kGroundCount = 8;

// Whether `e` depends on the viewing thread.
bool NamesSelf(const Expr& e) {
  if (e.kind == Expr::Kind::kSelf || e.kind == Expr::Kind::kLocalElement) return true;
  if ((e.kind == Expr::Kind::kLocal || e.kind == Expr::Kind::kPc) && e.args.empty()) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return NamesSelf(*a); });
}

// Whether a statement's body writes another thread's entry of a per-thread array.
bool WritesOthers(const std::vector<Instr>& body) {
  for (const Instr& op : body) {
    for (const Instr::Target& t : op.targets) {
      if (t.local && t.index && t.size == 0) return true;
    }
    for (const std::vector<Instr>& block : op.blocks) {
      if (WritesOthers(block)) return true;
    }
  }
  return false;
}

bool NamesBound(const Expr& e) {
  return e.kind == Expr::Kind::kBound ||
         std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr& a) { return NamesBound(*a); });
}

// Whether `e` reads nothing but the locations and per-thread variables of the viewing thread and
// of threads bound outside it (no shared variable, no quantifier of its own).
bool OwnStatesOnly(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::kShared:
    case Expr::Kind::kSharedElement:
    case Expr::Kind::kCount:
    case Expr::Kind::kForall:
    case Expr::Kind::kExists:
      return false;
    case Expr::Kind::kLocal:
    case Expr::Kind::kPc:
      if (!e.args.empty() && e.args[0]->kind != Expr::Kind::kBound) return false;
      break;
    default:
      break;
  }
  return std::all_of(e.args.begin(), e.args.end(),
                     [](const ExprPtr& a) { return OwnStatesOnly(*a); });
}

// The symbolic checks of step 3 (see the header), over `program` with the candidates as the
// predicates of its last abstraction block.
class Houdini {
 public:
  // At `fixed` threads, or with `fixed` empty for every count >= `first`; `alive` marks the
  // candidates still in.
  Houdini(const Program& program, std::optional<std::uint32_t> fixed, std::uint32_t first,
          std::vector<bool> alive, unsigned timeout_ms, LimitWatch* limits)
      : p_(program),
        solver_(MakeZ3Solver(timeout_ms)),
        s_(*solver_),
        enc_(program, s_),
        ids_(drb::IdHolders(program)),
        limits_(limits),
        alive_(std::move(alive)) {
    count_ = fixed ? enc_.Fixed(*fixed) : enc_.Ordered(first, facts_);
    for (const Predicate& pred : p_.abstractions.back().predicates) {
      enc_.TrackCounts(*pred.expr);
      global_.push_back(!NamesSelf(*pred.expr));
      const Expr& e = *pred.expr;
      own_.push_back(e.kind == Expr::Kind::kForall ? OwnStatesOnly(*e.args[0]) : OwnStatesOnly(e));
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
        const bool writes_others = WritesOthers(p_.statements[stmt].body);
        Hypothesis hyp{&pre, {t}, {}};
        std::vector<const Expr*> indices;  // those that name no quantifier's variable
        drb::ThreadIndexExprs(p_.statements[stmt].body, indices);
        for (const Expr* e : indices) {
          if (!NamesBound(*e)) hyp.threads.push_back(enc_.Eval(*e, pre, count_, t));
        }
        for (std::size_t v = 0; v < p_.shared.size(); ++v) {
          if (ids_.shared[v]) hyp.threads.push_back(pre.shared[v]);
        }
        for (std::size_t v = 0; v < p_.locals.size(); ++v) {
          if (ids_.locals[v]) hyp.threads.push_back(s_.Select(pre.locals[v], t));
        }
        if (!Prune({enc_.WellFormed(pre, count_), enc_.InRange(t, count_),
                    enc_.Step(stmt, t, pre, post, count_)},
                   post, failed, writes_others ? std::nullopt : std::optional<Term>(t), &hyp)) {
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
      if (holds) return SatResult::kSat;
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
  // `failed` (when given) is asked for beside them, and sets failed_ when it can hold. Each query
  // is asked alone (Solver::CheckAlone): the solver's incremental mode handles these quantifiers
  // far worse.
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
        if (weak != SatResult::kUnknown) return weak;
        all[invariant_at] = context[invariant_at];
      }
      const SatResult r = s_.CheckAlone(all);
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
        failed_ = true;
        return true;
      }
      bool dropped = false;
      for (const auto& [c, b] : breaks) {
        if (alive_[c] && s_.ModelBool(b)) {
          alive_[c] = false;
          dropped = true;
        }
      }
      // The model breaks a candidate that its evaluation could not name (a quantifier the model
      // does not decide): ask for each one alone.
      for (const auto& [c, b] : breaks) {
        if (dropped) break;
        if (!alive_[c]) continue;
        const SatResult one = ask(b);
        if (one == SatResult::kUnknown) return false;
        if (one == SatResult::kSat) {
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

OrderedResult ProveEveryOrderedCount(const std::string& source, const Program& program,
                                     std::uint32_t first, std::uint32_t last, unsigned timeout_ms,
                                     LimitWatch* limits, const std::vector<std::string>& given) {
  const Stopwatch clock;
  OrderedResult out;
  OrderedFigures& f = out.figures;
  CandidateReader reader(program);
  for (std::uint32_t n = first; n <= last; ++n) {
    f.instances.emplace_back();
    if (reader.Explore(n, limits, f.instances.back())) {
      out.verdict = Verdict::kViolation;
      out.violation_at = n;
      out.reason = fmt::format("a thread fails at {} threads", n);
      f.seconds = clock.Seconds();
      return out;
    }
    if (!f.instances.back().complete) break;  // larger instances would stop there too
  }
  std::vector<std::string> candidates = reader.Candidates();
  candidates.insert(candidates.end(), given.begin(), given.end());
  f.candidates = candidates.size();
  f.given = given.size();
  Program with;
  try {
    with = ParseProgram(source + "\n" + OrderedInvariantBlock(candidates), program.file);
  } catch (const InputError& e) {
    out.reason =
        std::string("the candidates read off the finite instances do not parse: ") + e.what();
    return out;
  }
  // Fixed counts first (ground queries, fast), where most candidates that are not inductive show
  // it; then every count at once.
  std::vector<bool> alive(candidates.size(), true);
  std::string failure;
  bool decided = true;
  const auto many = [&] {
    return static_cast<std::size_t>(std::count(alive.begin(), alive.end(), true)) > kManyCandidates;
  };
  for (std::uint32_t n = first;
       n <= first + kOrderedFixedCounts && decided && failure.empty() && (n < first + 2 || many());
       ++n) {
    Houdini fixed(with, n, first, alive, timeout_ms, limits);
    decided = fixed.Initial() && fixed.Steps(&failure);
    f.queries += fixed.queries();
    alive = fixed.alive();
    if (!decided) f.undecided = fixed.undecided();
  }
  if (decided && failure.empty()) {
    Houdini every(with, std::nullopt, first, alive, timeout_ms, limits);
    decided = every.Initial() && every.Steps(&failure);
    f.queries += every.queries();
    alive = every.alive();
    if (!decided) f.undecided = every.undecided();
  }
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    if (alive[c]) out.invariant.push_back(candidates[c]);
  }
  f.dropped = candidates.size() - out.invariant.size();
  f.seconds = clock.Seconds();
  if (!decided) {
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
        "threads hold initially and after every step at every count, and exclude every failure",
        first, out.invariant.size(), first, f.instances.back().threads);
  }
  return out;
}

}  // namespace druba::predabs
