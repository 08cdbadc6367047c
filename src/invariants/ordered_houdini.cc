#include "invariants/ordered_houdini.h"

#include <algorithm>
#include <iterator>

namespace druba::predabs {

bool Houdini::Initial() {
  const SymState s0 = enc_.FreshState("init", count_);
  levels_.facts = [&](Term level) {
    return s_.And(
        {enc_.RankFacts(s0, count_, level, {}, false), enc_.RankInitial(s0, count_, level)});
  };
  levels_.states = {&s0};
  levels_.mover.clear();
  return Prune({enc_.Initial(s0, count_)}, s0, std::nullopt);
}

std::vector<Term> Houdini::NamedThreads(std::uint32_t stmt, const SymState& pre, Term t) {
  std::vector<Term> threads{t};
  std::vector<const Expr*> indices;  // those that name no quantifier's variable
  drb::ThreadIndexExprs(p_.statements[stmt].body, indices);
  for (const Expr* e : indices) {
    if (!drb::NamesBound(*e)) threads.push_back(enc_.Eval(*e, pre, count_, t));
  }
  for (std::size_t v = 0; v < p_.shared.size(); ++v) {
    if (ids_.shared[v]) threads.push_back(pre.shared[v]);
  }
  for (std::size_t v = 0; v < p_.locals.size(); ++v) {
    if (ids_.locals[v]) threads.push_back(s_.Select(pre.locals[v], t));
  }
  // The ids the statement reads off other threads' entries (`victim[lv]`).
  for (const Expr* e : IdReads(p_.statements[stmt].body)) {
    threads.push_back(enc_.Value(*e, pre, count_, t));
  }
  return threads;
}

bool Houdini::Steps(std::string* failure) {
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
      Hypothesis hyp{&pre, NamedThreads(stmt, pre, t), {}};
      std::vector<Term> context{enc_.WellFormed(pre, count_), enc_.InRange(t, count_),
                                enc_.Step(stmt, t, pre, post, count_)};
      if (!count_.fixed) {  // ground queries instantiate the invariant at these threads too
        for (const Term u : enc_.QuantifierWitnesses(stmt, t, pre, count_, context)) {
          hyp.threads.push_back(u);
        }
      }
      levels_.facts = [&, stmt](Term level) {
        const std::vector<Term>& named = hyp.threads;
        return s_.And({enc_.RankFacts(pre, count_, level, named, true),
                       enc_.RankFacts(post, count_, level, named, false),
                       enc_.RankStep(stmt, t, pre, post, count_, level, named)});
      };
      levels_.states = {&pre, &post};
      levels_.mover.clear();
      for (const SymState* state : {&pre, &post}) {
        for (const Term l : enc_.RankThresholds(*state, count_, t)) levels_.mover.push_back(l);
      }
      if (!Prune(std::move(context), post,
                 failure != nullptr ? std::optional<Term>(failed) : std::nullopt,
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

Term Houdini::PairInvariant(const SymState& s, Term k, Term j, bool first_j) {
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

SatResult Houdini::Grounded(std::vector<Term> context, std::size_t at, Hypothesis& hyp) {
  ground_threads_.reset();
  bool small = false;
  for (int round = 0; round < kGroundRounds; ++round) {
    context[at] = WithLevels(Invariant(*hyp.pre, &hyp));
    const SatResult r = s_.CheckAlone(context, kGroundTimeoutMs);
    // Unsatisfiable with at most kGroundCount threads says nothing of more threads.
    if (r != SatResult::kSat) return r == SatResult::kUnsat && !small ? r : SatResult::kUnknown;
    const Int n = s_.ModelInt(count_.n);
    if (n > kGroundCount) {
      // Rank counts are exact up to kGroundCount threads only: look for a model there first.
      if (!enc_.TracksRanks() || small) return SatResult::kUnknown;
      small = true;
      context.push_back(s_.Le(count_.n, s_.Num(kGroundCount)));
      continue;
    }
    const auto threads = static_cast<std::uint32_t>(n);
    bool holds = RanksHold(*hyp.pre, threads);
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

Term Houdini::Invariant(const SymState& s, const Hypothesis* at) {
  const auto pair = [&](Term k, Term j, bool first_j) { return PairInvariant(s, k, j, first_j); };
  std::vector<Term> all;  // the candidates that name no `self`, once
  for (std::size_t c = 0; c < alive_.size(); ++c) {
    if (!alive_[c] || !global_[c]) continue;
    if (!rank_[c]) {
      all.push_back(enc_.Eval(*Candidate(c).expr, s, count_, count_.zero));
      continue;
    }
    for (const Term level : levels_.at) {
      all.push_back(
          s_.Implies(enc_.InRange(level, count_), Pair(*Candidate(c).expr, s, count_.zero, level)));
    }
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
      all.push_back(
          s_.Implies(s_.Lt(s_.Num(std::max(k, j)), count_.n), pair(s_.Num(k), s_.Num(j), j == 0)));
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

SatResult Houdini::Ask(const std::vector<Term>& context, std::size_t invariant_at, Hypothesis* hyp,
                       Term goal) {
  if (limits_ != nullptr && limits_->Check()) {
    undecided_ = *limits_->Check();
    return SatResult::kUnknown;
  }
  ++queries_;
  std::vector<Term> all = context;
  all.push_back(goal);
  if (hyp != nullptr && !count_.fixed) {  // grounded first
    const SatResult weak = Grounded(all, invariant_at, *hyp);
    model_threads_ = ground_threads_;
    if (weak != SatResult::kUnknown) return weak;
    all[invariant_at] = context[invariant_at];
  }
  const SatResult r = count_.fixed ? CheckScoped(all) : s_.CheckAlone(all);
  model_threads_ = count_.fixed;
  if (r == SatResult::kUnknown) undecided_ = s_.ReasonUnknown();
  return r;
}

bool Houdini::Prune(std::vector<Term> context, const SymState& s, std::optional<Term> failed,
                    std::optional<Term> mover, Hypothesis* hyp) {
  for (const Term f : facts_) context.push_back(f);
  // One pair of threads (v, w) for every candidate: "some candidate breaks at some pair" is
  // "at some pair some candidate breaks", and the solver then meets two threads, not two per
  // candidate (each one more term to instantiate the invariant with).
  const Term v = enc_.FreshThread(count_, "v");
  const Term w = enc_.FreshThread(count_, "w");
  context.push_back(enc_.InRange(v, count_));
  context.push_back(enc_.InRange(w, count_));
  const bool grounded = hyp != nullptr && !count_.fixed;
  NameLevels();
  std::vector<std::pair<std::size_t, Term>> breaks;
  for (std::size_t c = 0; c < alive_.size(); ++c) {
    if (alive_[c]) breaks.emplace_back(c, Break(c, s, v, w, own_[c] ? mover : std::nullopt));
  }
  const std::size_t invariant_at = context.size();
  if (hyp != nullptr) {
    context.push_back(WithLevels(Invariant(*hyp->pre)));
  } else if (enc_.TracksRanks() && levels_.facts) {
    context.push_back(LevelFacts());
  }
  if (grounded) {
    hyp->threads.push_back(v);
    hyp->threads.push_back(w);
  }
  const auto ask = [&](Term goal) { return Ask(context, invariant_at, hyp, goal); };
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
    if (!dropped) {
      const std::optional<bool> halved = Halve(breaks, ask, hyp);
      if (!halved) return false;
      dropped = *halved;
    }
    if (!dropped) {
      undecided_ = "a model breaks the candidates, but none of them alone";
      return false;
    }
  }
}

std::optional<bool> Houdini::Halve(const std::vector<std::pair<std::size_t, Term>>& breaks,
                                   const std::function<SatResult(Term)>& ask, Hypothesis* hyp) {
  std::vector<std::pair<std::size_t, Term>> group;
  for (const auto& cb : breaks) {
    if (alive_[cb.first]) group.push_back(cb);
  }
  bool dropped = false;
  while (!dropped && !group.empty()) {
    const std::size_t half = (group.size() + 1) / 2;
    std::vector<Term> first;
    for (std::size_t i = 0; i < half; ++i) first.push_back(group[i].second);
    const SatResult part = ask(s_.Or(first));
    if (part == SatResult::kUnknown) return std::nullopt;
    if (part == SatResult::kUnsat) {
      group.erase(group.begin(), group.begin() + static_cast<std::ptrdiff_t>(half));
      continue;
    }
    group.resize(half);
    dropped = DropBroken(group, hyp);
    if (!dropped && group.size() == 1) {
      const std::size_t c = group[0].first;
      if (c >= derived_) Capture(hyp, {c});
      alive_[c] = false;
      dropped = true;
    }
  }
  return dropped;
}

void Houdini::NameLevels() {
  levels_.at.clear();
  if (!enc_.TracksRanks() || count_.fixed) return;
  levels_.at.push_back(s_.Apply(Fn::kSub, {count_.n, s_.Num(1)}));
  for (const Term l : levels_.mover) {
    levels_.at.push_back(l);
    levels_.at.push_back(s_.Apply(Fn::kSub, {l, s_.Num(1)}));
  }
}

SatResult Houdini::CheckScoped(const std::vector<Term>& all) {
  s_.Push();
  for (const Term f : all) s_.Assert(f);
  const SatResult r = s_.Check();
  s_.Pop();
  return r;
}

bool Houdini::DropBroken(const std::vector<std::pair<std::size_t, Term>>& breaks,
                         const Hypothesis* hyp) {
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

void Houdini::Capture(const Hypothesis* hyp, std::vector<std::size_t> dropped, bool always) {
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

Term Houdini::Pair(const Expr& e, const SymState& s, Term k, Term j) {
  const Term body = enc_.Instance(e, s, count_, k, j);
  return e.exclude_self ? s_.Or({s_.Eq(j, k), body}) : body;
}

Term Houdini::Break(std::size_t c, const SymState& s, Term v, Term w, std::optional<Term> mover) {
  const Expr& e = *Candidate(c).expr;
  if (rank_[c]) {
    const Term level = s_.FreshInt("level");
    levels_.at.push_back(level);
    levels_.at.push_back(s_.Apply(Fn::kSub, {level, s_.Num(1)}));
    return s_.And({enc_.InRange(level, count_), s_.Not(Pair(e, s, count_.zero, level))});
  }
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

Term Houdini::WithLevels(Term invariant) {
  return enc_.TracksRanks() && levels_.facts ? s_.And({invariant, LevelFacts()}) : invariant;
}

Term Houdini::LevelFacts() {
  std::vector<Term> all;
  if (!enc_.TracksRanks() || !levels_.facts) return s_.BoolValue(true);
  for (const Term level : levels_.at) {
    all.push_back(levels_.facts(level));
    for (const SymState* state : levels_.states) {
      all.push_back(enc_.RankExact(*state, count_, kGroundCount, level));
    }
  }
  return s_.And(all);
}

bool Houdini::RanksHold(const SymState& pre, std::uint32_t threads) {
  if (!enc_.TracksRanks() || count_.fixed) return true;
  // The rank candidates at every level below the count, with the counts the model's threads give.
  bool holds = true;
  for (std::uint32_t l = 0; l < threads; ++l) {
    const Term level = s_.Num(l);
    SymState exact = pre;
    for (std::size_t k = 0; k < exact.ranks.size(); ++k) {
      exact.ranks[k] = s_.Store(pre.ranks[k], level, enc_.RankSum(pre, count_, k, threads, level));
    }
    bool ok = true;
    for (std::size_t c = 0; c < alive_.size() && ok; ++c) {
      ok = !alive_[c] || !rank_[c] ||
           s_.ModelBool(Pair(*Candidate(c).expr, exact, count_.zero, level));
    }
    if (ok) continue;
    levels_.at.push_back(level);
    holds = false;
  }
  return holds;
}

std::vector<const Expr*> Houdini::IdReads(const std::vector<Instr>& body) const {
  std::vector<const Expr*> out;
  const std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (e.kind == Expr::Kind::kLocal && !e.args.empty() && ids_.locals[e.var] &&
        !drb::NamesBound(e)) {
      out.push_back(&e);
    }
    for (const ExprPtr& a : e.args) visit(*a);
  };
  const std::function<void(const std::vector<Instr>&)> walk = [&](const auto& block) {
    for (const Instr& op : block) {
      for (const ExprPtr& e : op.exprs) visit(*e);
      for (const std::vector<Instr>& inner : op.blocks) walk(inner);
    }
  };
  walk(body);
  return out;
}

}  // namespace druba::predabs
