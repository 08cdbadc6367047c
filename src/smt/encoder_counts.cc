// Encoder: counts of threads used as values with the thread count symbolic (drb/counting.h). A
// count of the threads' own states is one integer per state; a rank count (ids ordered) is one
// function of its parameter per state. Both follow a step by the stepping thread's change, and
// well-formed states relate them to the threads by witnesses.
#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "drb/counting.h"
#include "smt/encoder.h"

namespace druba::predabs {
namespace {

// Whether `body` writes another thread's entry of a per-thread variable that `count`'s body
// reads of the counted thread (`flag[j] := ...` where it reads `flag[i]`).
bool WritesCountedEntries(const std::vector<Instr>& body, const Expr& count) {
  std::vector<std::uint32_t> read;
  const std::function<void(const Expr&)> visit = [&](const Expr& e) {
    if (e.kind == Expr::Kind::kLocal) read.push_back(e.var);
    for (const ExprPtr& a : e.args) visit(*a);
  };
  visit(*count.args[0]);
  const std::function<bool(const std::vector<Instr>&)> writes = [&](const auto& block) {
    for (const Instr& op : block) {
      for (const Instr::Target& t : op.targets) {
        if (t.local && t.index && t.size == 0 &&
            std::find(read.begin(), read.end(), t.var) != read.end()) {
          return true;
        }
      }
      for (const std::vector<Instr>& inner : op.blocks) {
        if (writes(inner)) return true;
      }
    }
    return false;
  };
  return writes(body);
}

}  // namespace

Term Encoder::Counted(std::size_t k, const SymState& state, const ThreadCount& count, Term thread) {
  const Expr& c = *counts_[k];
  std::vector<Term> slots(program_.num_slots, 0);
  slots[c.var] = thread;
  return EvalIn(*c.args[0], state, count, thread, slots, nullptr);
}

std::vector<Term> Encoder::CountsAfter(const SymState& pre, const SymState& now, Term actor,
                                       const ThreadCount& count) {
  std::vector<Term> out;
  for (std::size_t k = 0; k < pre.counts.size(); ++k) {
    const Term before = s_.Ite(Counted(k, pre, count, actor), s_.Num(1), s_.Num(0));
    const Term after = s_.Ite(Counted(k, now, count, actor), s_.Num(1), s_.Num(0));
    out.push_back(s_.Apply(Fn::kAdd, {s_.Apply(Fn::kSub, {pre.counts[k], before}), after}));
  }
  return out;
}

Term Encoder::Witnesses(const ThreadCount& count, std::uint32_t m,
                        const std::function<Term(Term)>& holds) {
  std::vector<Term> vars;
  std::vector<Term> body;
  for (std::uint32_t w = 0; w < m; ++w) {
    const Term i = FreshThread(count, "w");
    body.push_back(InRange(i, count));
    for (const Term u : vars) body.push_back(s_.Not(s_.Eq(u, i)));
    body.push_back(holds(i));
    vars.push_back(i);
  }
  Term out = s_.And(body);
  for (auto it = vars.rbegin(); it != vars.rend(); ++it) out = s_.Quantify(false, *it, out);
  return out;
}

Term Encoder::CountValue(const Expr& e, const SymState& state, const ThreadCount& count, Term self,
                         std::vector<Term>& slots, std::vector<Term>* errors) {
  if (errors != nullptr) QuantifiedErrors(e, state, count, self, slots, errors);
  Term all = count.n;
  const std::optional<std::uint32_t> param = drb::RankParameter(e);
  const auto rank = std::find_if(rank_counts_.begin(), rank_counts_.end(),
                                 [&](const Expr* c) { return drb::SameCount(*c, e); });
  if (param && rank != rank_counts_.end() && !state.ranks.empty()) {
    all = s_.Select(state.ranks[static_cast<std::size_t>(rank - rank_counts_.begin())],
                    slots[*param]);
  } else if (!drb::CountsEveryThread(e)) {
    const auto it = std::find_if(counts_.begin(), counts_.end(),
                                 [&](const Expr* c) { return drb::SameCount(*c, e); });
    if (it == counts_.end() || state.counts.empty()) {
      throw InputError(e.where,
                       "with the thread count left symbolic, count(...) must be compared with a "
                       "number, count threads by their own location and locals only, or (ids "
                       "ordered, outside statements) count them by rank");
    }
    all = state.counts[static_cast<std::size_t>(it - counts_.begin())];
  }
  if (!e.exclude_self) return all;
  slots[e.var] = self;
  const Term own = EvalIn(*e.args[0], state, count, self, slots, nullptr);
  return s_.Apply(Fn::kSub, {all, s_.Ite(own, s_.Num(1), s_.Num(0))});
}

Term Encoder::Ranked(std::size_t k, const SymState& state, const ThreadCount& count, Term thread,
                     Term level) {
  const Expr& c = *rank_counts_[k];
  std::vector<Term> slots(program_.num_slots, 0);
  slots[c.var] = thread;
  slots[*drb::RankParameter(c)] = level;
  return EvalIn(*c.args[0], state, count, thread, slots, nullptr);
}

std::vector<Term> Encoder::RankThresholds(const SymState& state, const ThreadCount& count,
                                          Term thread) {
  std::vector<Term> out;
  for (const Expr* c : rank_counts_) {
    const std::uint32_t param = *drb::RankParameter(*c);
    std::vector<const Expr*> sides;
    const std::function<void(const Expr&)> walk = [&](const Expr& e) {
      if (e.kind != Expr::Kind::kBinary) return;
      if (e.op == Expr::Op::kAnd || e.op == Expr::Op::kOr) {
        walk(*e.args[0]);
        walk(*e.args[1]);
        return;
      }
      for (std::size_t side = 0; side < 2; ++side) {
        const Expr& p = *e.args[side];
        if (p.kind == Expr::Kind::kBound && p.var == param) sides.push_back(e.args[1 - side].get());
      }
    };
    walk(*c->args[0]);
    std::vector<Term> slots(program_.num_slots, 0);
    slots[c->var] = thread;
    for (const Expr* e : sides) out.push_back(EvalIn(*e, state, count, thread, slots, nullptr));
  }
  return out;
}

Term Encoder::CountRange(Term c, const ThreadCount& count, const std::function<Term(Term)>& holds) {
  const auto fails = [&](Term i) { return s_.Not(holds(i)); };
  const Term rest = s_.Apply(Fn::kSub, {count.n, c});
  std::vector<Term> parts{s_.Le(s_.Num(0), c), s_.Le(s_.Num(0), rest)};
  for (std::uint32_t m = 1; m <= count_witnesses_; ++m) {
    parts.push_back(s_.Eq(s_.Le(s_.Num(m), c), Witnesses(count, m, holds)));
    parts.push_back(s_.Eq(s_.Le(s_.Num(m), rest), Witnesses(count, m, fails)));
  }
  return s_.And(parts);
}

Term Encoder::AtLeastNamed(Term c, const ThreadCount& count, const std::vector<Term>& threads,
                           const std::function<Term(Term)>& holds) {
  std::vector<Term> parts;
  for (std::size_t a = 0; a < threads.size(); ++a) {
    const Term one = s_.And({InRange(threads[a], count), holds(threads[a])});
    parts.push_back(s_.Implies(one, s_.Le(s_.Num(1), c)));
    for (std::size_t b = a + 1; b < threads.size(); ++b) {
      const Term two = s_.And({one, InRange(threads[b], count), holds(threads[b]),
                               s_.Not(s_.Eq(threads[a], threads[b]))});
      parts.push_back(s_.Implies(two, s_.Le(s_.Num(2), c)));
    }
  }
  return s_.And(parts);
}

void Encoder::CountFacts(const SymState& state, const ThreadCount& count,
                         std::vector<Term>& parts) {
  for (std::size_t k = 0; k < state.counts.size(); ++k) {
    parts.push_back(
        CountRange(state.counts[k], count, [&](Term i) { return Counted(k, state, count, i); }));
  }
  for (const auto& pair : count_pairs_) {
    const std::size_t a = pair.first;
    const std::size_t b = pair.second;
    if (a >= state.counts.size() || b >= state.counts.size()) continue;
    const Term both = s_.FreshInt("both");
    const Term ca = state.counts[a];
    const Term cb = state.counts[b];
    const Term cells[4] = {
        both, s_.Apply(Fn::kSub, {ca, both}), s_.Apply(Fn::kSub, {cb, both}),
        s_.Apply(Fn::kAdd, {s_.Apply(Fn::kSub, {count.n, ca}), s_.Apply(Fn::kSub, {both, cb})})};
    for (int cell = 0; cell < 4; ++cell) {
      // 0: counted by both; 1: by a only; 2: by b only; 3: by neither.
      const auto holds = [&](Term i) {
        const Term in_a = Counted(a, state, count, i);
        const Term in_b = Counted(b, state, count, i);
        return s_.And({cell < 2 ? in_a : s_.Not(in_a), cell % 2 == 0 ? in_b : s_.Not(in_b)});
      };
      parts.push_back(s_.Le(s_.Num(0), cells[cell]));
      parts.push_back(s_.Eq(s_.Le(s_.Num(1), cells[cell]), Witnesses(count, 1, holds)));
    }
  }
}

void Encoder::InitialCounts(const SymState& state, const ThreadCount& count,
                            std::vector<Term>& parts) {
  // Every thread starts alike (one template): a count holds for all of them or for none.
  for (std::size_t k = 0; k < state.counts.size(); ++k) {
    parts.push_back(
        s_.Eq(state.counts[k], s_.Ite(Counted(k, state, count, count.zero), count.n, s_.Num(0))));
  }
}

Term Encoder::RankFacts(const SymState& state, const ThreadCount& count, Term level,
                        const std::vector<Term>& threads, bool witness) {
  std::vector<Term> parts;
  for (std::size_t k = 0; k < state.ranks.size(); ++k) {
    const Term c = s_.Select(state.ranks[k], level);
    const auto holds = [&](Term i) { return Ranked(k, state, count, i, level); };
    parts.push_back(s_.Le(s_.Num(0), c));
    parts.push_back(s_.Le(c, count.n));
    if (witness) parts.push_back(s_.Implies(s_.Le(s_.Num(1), c), Witnesses(count, 1, holds)));
    parts.push_back(AtLeastNamed(c, count, threads, holds));
    parts.push_back(AtLeastNamed(s_.Apply(Fn::kSub, {count.n, c}), count, threads,
                                 [&](Term i) { return s_.Not(holds(i)); }));
  }
  return s_.And(parts);
}

Term Encoder::RankInitial(const SymState& state, const ThreadCount& count, Term level) {
  // Every thread starts alike (one template): a count holds for all of them or for none.
  std::vector<Term> parts;
  for (std::size_t k = 0; k < state.ranks.size(); ++k) {
    parts.push_back(s_.Eq(s_.Select(state.ranks[k], level),
                          s_.Ite(Ranked(k, state, count, count.zero, level), count.n, s_.Num(0))));
  }
  return s_.And(parts);
}

Term Encoder::RankStep(std::uint32_t stmt, Term actor, const SymState& pre, const SymState& post,
                       const ThreadCount& count, Term level, const std::vector<Term>& threads) {
  const auto truth = [&](Term b) { return s_.Ite(b, s_.Num(1), s_.Num(0)); };
  std::vector<Term> parts;
  for (std::size_t k = 0; k < pre.ranks.size(); ++k) {
    // A statement that writes another thread's entry the count reads leaves the count after it
    // to the facts of well-formed states alone.
    if (!WritesCountedEntries(program_.statements[stmt].body, *rank_counts_[k])) {
      const Term before = s_.Apply(
          Fn::kSub, {s_.Select(pre.ranks[k], level), truth(Ranked(k, pre, count, actor, level))});
      parts.push_back(
          s_.Eq(s_.Select(post.ranks[k], level),
                s_.Apply(Fn::kAdd, {before, truth(Ranked(k, post, count, actor, level))})));
    }
    // The threads at the level below exactly, in the state the step starts from: the count there
    // less the count at `level` (those counted at a level are among those counted one below).
    const Term below = s_.Apply(Fn::kSub, {level, s_.Num(1)});
    const Term exact =
        s_.Apply(Fn::kSub, {s_.Select(pre.ranks[k], below), s_.Select(pre.ranks[k], level)});
    parts.push_back(s_.Le(s_.Num(0), exact));
    parts.push_back(AtLeastNamed(exact, count, threads, [&](Term i) {
      return s_.And({Ranked(k, pre, count, i, below), s_.Not(Ranked(k, pre, count, i, level))});
    }));
  }
  return s_.And(parts);
}

Term Encoder::RankSum(const SymState& state, const ThreadCount& count, std::size_t k,
                      std::uint32_t threads, Term level) {
  std::vector<Term> terms{s_.Num(0)};
  for (std::uint32_t i = 0; i < threads; ++i) {
    const Term counted =
        s_.And({s_.Lt(s_.Num(i), count.n), Ranked(k, state, count, s_.Num(i), level)});
    terms.push_back(s_.Ite(counted, s_.Num(1), s_.Num(0)));
  }
  return s_.Apply(Fn::kAdd, terms);
}

Term Encoder::RankExact(const SymState& state, const ThreadCount& count, std::uint32_t most,
                        Term level) {
  std::vector<Term> parts;
  for (std::size_t k = 0; k < state.ranks.size(); ++k) {
    parts.push_back(s_.Eq(s_.Select(state.ranks[k], level), RankSum(state, count, k, most, level)));
  }
  return s_.Implies(s_.Le(count.n, s_.Num(most)), s_.And(parts));
}

}  // namespace druba::predabs
