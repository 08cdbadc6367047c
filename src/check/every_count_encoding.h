// The checker's own encoding of a `.drb` program for every thread count (drb_every_count.h): a
// state of any count, and the steps, predicates and views over it. Used by drb_every_count.cc only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <z3++.h>

#include "check/drb_steps.h"
#include "drb/counting.h"

namespace druba::check::every_count {

using drb::Expr;
using drb::Program;
using Kind = Expr::Kind;

// What the encoding cannot state for every thread count.
struct Unsupported {
  std::string what;
};

// The most distinct witnesses "at least m threads satisfy ..." is stated with; a larger m is
// Unsupported.
inline constexpr int kMaxWitnesses = 64;

// A state of any thread count: the shared variables, and the locations and each local as arrays
// from the thread sort to integers; the value of each count of the threads' own states used as a
// value (drb/counting.h), an integer kept up to date by every write and move.
struct State {
  std::vector<z3::expr> shared;
  z3::expr pc;
  std::vector<z3::expr> locals;
  std::vector<z3::expr> counts;
  std::vector<z3::expr> pairs;  // ordered: each per-pair array, from two thread ids to integers
  // Ordered: each rank count of the abstraction's (drb::RankParameter), from its parameter to the
  // number of threads it counts there, kept up to date by every write and move.
  std::vector<z3::expr> ranks;
};

class Symbolic : public StatementEncoder<Symbolic, State, z3::expr> {
 public:
  // The threads are the elements of the sort; there are `n` of them (the thread count). Ordered:
  // the threads are the integers 0 .. n-1 (ids compared, stored, used as indices).
  Symbolic(const Program& p, const drb::AbstractionSpec& spec, z3::context& ctx, bool ordered)
      : StatementEncoder(p, ctx),
        ordered_(ordered),
        thread_(ordered ? ctx.int_sort() : ctx.uninterpreted_sort("Thread")),
        n_(ctx.int_const("n")) {
    for (const auto& st : p.statements) {
      std::vector<const Expr*> here;
      drb::ValueCounts(st.body, here);
      Read(here);
    }
    for (const auto& pred : spec.predicates) {
      std::vector<const Expr*> here;
      drb::ValueCounts(*pred.expr, here);
      Read(here);
    }
    if (ordered) {
      for (const auto& pred : spec.predicates) drb::RankCounts(*pred.expr, ranks_);
    }
  }
  const z3::expr& n() const { return n_; }

  z3::expr Thread(const std::string& name) { return ctx_.constant(Name(name).c_str(), thread_); }
  // Whether `i` is one of the threads (every element of the sort, unless ordered).
  z3::expr InRange(const z3::expr& i) { return ordered_ ? i >= 0 && i < n_ : ctx_.bool_val(true); }
  z3::expr Forall(const z3::expr& i, const z3::expr& body) {
    return z3::forall(i, z3::implies(InRange(i), body));
  }
  z3::expr Exists(const z3::expr& i, const z3::expr& body) {
    return z3::exists(i, InRange(i) && body);
  }
  z3::expr Exists(const z3::expr_vector& ids, const z3::expr& body) {
    z3::expr in = ctx_.bool_val(true);
    for (int k = 0; k < static_cast<int>(ids.size()); ++k) in = in && InRange(ids[k]);
    return z3::exists(ids, in && body);
  }
  z3::expr Int(const drb::Int& v) { return ctx_.int_val(v.str().c_str()); }
  // A per-pair array (ordered ids): from the row's thread and the column's to integers.
  z3::sort PairSort() {
    z3::sort_vector both(ctx_);
    both.push_back(thread_);
    both.push_back(thread_);
    return ctx_.array_sort(both, ctx_.int_sort());
  }
  static z3::expr Entry(const z3::expr& array, const z3::expr& row, const z3::expr& column) {
    z3::expr_vector at(array.ctx());
    at.push_back(row);
    at.push_back(column);
    return z3::select(array, at);
  }

  State Fresh(const std::string& tag) {
    const z3::sort array = ctx_.array_sort(thread_, ctx_.int_sort());
    State s{{}, ctx_.constant((tag + "pc").c_str(), array), {}, {}, {}, {}};
    for (const auto& v : p_.shared) s.shared.push_back(ctx_.int_const((tag + v.name).c_str()));
    for (const auto& v : p_.pairs) {
      s.pairs.push_back(ctx_.constant((tag + v.name).c_str(), PairSort()));
    }
    for (const auto& v : p_.locals)
      s.locals.push_back(ctx_.constant((tag + v.name).c_str(), array));
    for (std::size_t k = 0; k < counts_.size(); ++k)
      s.counts.push_back(ctx_.int_const(fmt::format("{}count{}", tag, k).c_str()));
    const z3::sort levels = ctx_.array_sort(ctx_.int_sort(), ctx_.int_sort());
    for (std::size_t k = 0; k < ranks_.size(); ++k)
      s.ranks.push_back(ctx_.constant(fmt::format("{}rank{}", tag, k).c_str(), levels));
    return s;
  }
  State Initial() {
    State s{{}, z3::const_array(thread_, ctx_.int_val(p_.templates[0].first)), {}, {}, {}, {}};
    for (const auto& v : p_.shared) s.shared.push_back(Int(v.init));
    for (const auto& v : p_.pairs)
      s.pairs.push_back(z3::lambda(Thread("r"), Thread("c"), Int(v.init)));
    for (const auto& v : p_.locals) s.locals.push_back(z3::const_array(thread_, Int(v.init)));
    const z3::expr any = Thread("a");  // every thread starts alike: all counted, or none
    for (std::size_t k = 0; k < counts_.size(); ++k)
      s.counts.push_back(z3::ite(Counted(k, s, any), n_, ctx_.int_val(0)));
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      const z3::expr level = ctx_.int_const(Name("l").c_str());
      s.ranks.push_back(
          z3::lambda(level, z3::ite(RankCounted(k, s, any, level), n_, ctx_.int_val(0))));
    }
    return s;
  }

  // Declared types; every thread at one of the template's statements or its end.
  z3::expr WellFormed(const State& s) {
    z3::expr_vector parts(ctx_);
    const auto typed = [&](const drb::Variable& v, const z3::expr& x) { Typed(v, x, parts); };
    for (std::size_t v = 0; v < p_.shared.size(); ++v) typed(p_.shared[v], s.shared[v]);
    const z3::expr i = Thread("w");
    const auto& tt = p_.templates[0];
    const z3::expr pc = z3::select(s.pc, i);
    parts.push_back(
        (pc >= static_cast<int>(tt.first) && pc < static_cast<int>(tt.first + tt.size)) ||
        pc == static_cast<int>(tt.end_pc));
    for (std::size_t v = 0; v < p_.locals.size(); ++v)
      typed(p_.locals[v], z3::select(s.locals[v], i));
    z3::expr out = Forall(i, z3::mk_and(parts));
    for (std::size_t v = 0; v < p_.pairs.size(); ++v) {
      if (p_.pairs[v].type == drb::Type::kInt && !p_.pairs[v].lower && !p_.pairs[v].upper) continue;
      const z3::expr j = Thread("c");
      parts.resize(0);
      typed(p_.pairs[v], Entry(s.pairs[v], i, j));
      out = out && Forall(i, Forall(j, z3::mk_and(parts)));
    }
    return out && Witnessed(s, 1) && Split(s);
  }

  // Two counts one expression reads split the threads into four parts (counted by both, the first
  // only, the second only, neither), each of them at least 0 and at least 1 exactly when a thread
  // is in it; the parts add up to n. Stated once per state, with its well-formedness.
  z3::expr Split(const State& s) {
    z3::expr out = ctx_.bool_val(true);
    for (const auto& [a, b] : together_) {
      const z3::expr both = ctx_.int_const(Name("both").c_str());
      const z3::expr part[4] = {both, s.counts[a] - both, s.counts[b] - both,
                                n_ - s.counts[a] - s.counts[b] + both};
      for (int k = 0; k < 4; ++k) {
        const z3::expr w = Thread("p");
        const z3::expr in_a = Counted(a, s, w);
        const z3::expr in_b = Counted(b, s, w);
        const z3::expr here =
            (k == 0 || k == 1 ? in_a : !in_a) && (k == 0 || k == 2 ? in_b : !in_b);
        out = out && part[k] >= 0 && (part[k] >= 1) == Exists(w, here);
      }
    }
    return out;
  }

  // A count lies in 0..n, and at least m threads are counted, or not counted, exactly when m
  // distinct threads witness it (for m from 1 to `most`).
  z3::expr Witnessed(const State& s, int most) {
    z3::expr out = ctx_.bool_val(true);
    for (std::size_t k = 0; k < s.counts.size(); ++k) {
      const z3::expr& c = s.counts[k];
      out = out && c >= 0 && c <= n_;
      for (int m = 1; m <= most; ++m) {
        z3::expr_vector ids(ctx_);
        z3::expr_vector in(ctx_);
        z3::expr_vector out_of(ctx_);
        for (int w = 0; w < m; ++w) {
          ids.push_back(Thread("m"));
          in.push_back(Counted(k, s, ids.back()));
          out_of.push_back(!Counted(k, s, ids.back()));
        }
        if (m > 1) {
          in.push_back(z3::distinct(ids));
          out_of.push_back(z3::distinct(ids));
        }
        out = out && (c >= m) == Exists(ids, z3::mk_and(in)) &&
              (n_ - c >= m) == Exists(ids, z3::mk_and(out_of));
      }
    }
    return out;
  }

  // The value of `e` in s from thread `self`'s view; *fail collects when its evaluation fails.
  z3::expr Eval(const Expr& e, const State& s, const z3::expr& self, std::vector<z3::expr>& bound,
                z3::expr* fail) {
    switch (e.kind) {
      case Kind::kHavoc:  // taken by the assignment (StatementEncoder::Assign)
        throw std::logic_error("`*` outside an assignment");
      case Kind::kIte: {  // a failure of the branch not taken is none
        const z3::expr c = Eval(*e.args[0], s, self, bound, fail) != 0;
        z3::expr then_fail = ctx_.bool_val(false);
        z3::expr else_fail = ctx_.bool_val(false);
        const z3::expr a = Eval(*e.args[1], s, self, bound, &then_fail);
        const z3::expr b = Eval(*e.args[2], s, self, bound, &else_fail);
        *fail = *fail || (c && then_fail) || (!c && else_fail);
        return z3::ite(c, a, b);
      }
      case Kind::kNumber:
      case Kind::kBool:
      case Kind::kLabel:
        return Int(e.value);
      case Kind::kShared:
        return s.shared[e.var];
      case Kind::kLocal:
        return z3::select(s.locals[e.var], ThreadOf(e, s, self, bound, fail));
      case Kind::kPc:
        return z3::select(s.pc, ThreadOf(e, s, self, bound, fail));
      case Kind::kPair: {
        if (!ordered_) throw Unsupported{"a per-pair array"};
        const z3::expr row = Eval(*e.args[0], s, self, bound, fail);
        const z3::expr column = Eval(*e.args[1], s, self, bound, fail);
        *fail = *fail || !InRange(row) || !InRange(column);
        return Entry(s.pairs[e.var], row, column);
      }
      case Kind::kSharedElement:
      case Kind::kLocalElement: {
        const z3::expr i = Eval(*e.args[0], s, self, bound, fail);
        const auto size = static_cast<std::uint32_t>(e.value);
        *fail = *fail || i < 0 || i >= static_cast<int>(size);
        const auto element = [&](std::uint32_t k) {
          return e.kind == Kind::kSharedElement ? s.shared[e.var + k]
                                                : z3::select(s.locals[e.var + k], self);
        };
        z3::expr out = element(size - 1);
        for (std::uint32_t k = size - 1; k-- > 0;)
          out = z3::ite(i == static_cast<int>(k), element(k), out);
        return out;
      }
      case Kind::kSelf:
        if (ordered_) return self;
        throw Unsupported{"a thread used as a number"};
      case Kind::kBound:
        if (ordered_) return bound[e.var];
        throw Unsupported{"a thread used as a number"};
      case Kind::kUnary: {
        const z3::expr v = Eval(*e.args[0], s, self, bound, fail);
        return e.op == Op::kNot ? Truth(v == 0) : -v;
      }
      case Kind::kBinary:
        if (drb::ComparedWithNumber(e)) return CompareCount(e, s, self, bound, fail);
        return Binary(e.op, Eval(*e.args[0], s, self, bound, fail),
                      Eval(*e.args[1], s, self, bound, fail), fail);
      case Kind::kCount:
        return CountValue(e, s, self, bound, fail);
      case Kind::kForall:
      case Kind::kExists:
        break;
    }
    const z3::expr i = Thread("q");
    bound[e.var] = i;
    z3::expr body_fail = ctx_.bool_val(false);
    const z3::expr body = Eval(*e.args[0], s, self, bound, &body_fail) != 0;
    const z3::expr range = e.exclude_self ? i != self : ctx_.bool_val(true);
    *fail = *fail || Exists(i, range && body_fail);  // every body is evaluated
    return Truth(e.kind == Kind::kForall ? Forall(i, z3::implies(range, body))
                                         : Exists(i, range && body));
  }

  // A predicate is true: its value is, and its evaluation fails nowhere.
  z3::expr Holds(const Expr& e, const State& s, const z3::expr& view) {
    std::vector<z3::expr> bound(p_.num_slots, ctx_.int_val(0));
    z3::expr failed = ctx_.bool_val(false);
    const z3::expr value = Eval(e, s, view, bound, &failed) != 0;
    return value && !failed;
  }
  // `forall j: body` at thread j: its body holds there, or j is the viewer it leaves out.
  z3::expr Body(const Expr& e, const State& s, const z3::expr& view, const z3::expr& j) {
    std::vector<z3::expr> bound(p_.num_slots, ctx_.int_val(0));
    bound[e.var] = j;
    z3::expr failed = ctx_.bool_val(false);
    const z3::expr body = (Eval(*e.args[0], s, view, bound, &failed) != 0) && !failed;
    return e.exclude_self ? j == view || body : body;
  }

  // Thread `view`'s abstraction of s: tracked locations, then predicates as 0/1 (a predicate whose
  // evaluation fails somewhere, e.g. divides by zero, is false, as in druba's evaluator).
  std::vector<z3::expr> Alpha(const drb::AbstractionSpec& spec, const State& s,
                              const z3::expr& view) {
    std::vector<z3::expr> out;
    for (const auto& tracked : spec.pcs) {
      if (tracked.thread) throw Unsupported{"a fixed thread's location in the abstraction"};
      out.push_back(z3::select(s.pc, view));
    }
    for (const auto& pred : spec.predicates) {
      std::vector<z3::expr> bound(p_.num_slots, ctx_.int_val(0));
      z3::expr failed = ctx_.bool_val(false);
      const z3::expr value = Eval(*pred.expr, s, view, bound, &failed) != 0;
      out.push_back(Truth(value && !failed));
    }
    return out;
  }

  // Where the set is the one abstract state "every predicate true" (an invariant): every
  // predicate holds at viewer `view` of s, each `forall j: body` at the top only at the threads
  // `at` (where they are threads). Weaker than every predicate true, as a hypothesis.
  z3::expr TrueAt(const drb::AbstractionSpec& spec, const State& s, const z3::expr& view,
                  const std::vector<z3::expr>& at) {
    z3::expr_vector all(ctx_);
    for (const auto& pred : spec.predicates) {
      if (pred.expr->kind != Kind::kForall) {
        all.push_back(Holds(*pred.expr, s, view));
        continue;
      }
      for (const z3::expr& j : at)
        all.push_back(z3::implies(InRange(j), Body(*pred.expr, s, view, j)));
    }
    return z3::mk_and(all);
  }
  // Some predicate is false at viewer `view` of s, each `forall j: body` at the top at thread w
  // (a free constant: the same w for all is exact, an existential over a disjunction).
  z3::expr FalseAt(const drb::AbstractionSpec& spec, const State& s, const z3::expr& view,
                   const z3::expr& w) {
    z3::expr_vector any(ctx_);
    for (const auto& pred : spec.predicates) any.push_back(FalseAt(*pred.expr, s, view, w));
    return z3::mk_or(any);
  }
  // That one predicate is.
  z3::expr FalseAt(const Expr& pred, const State& s, const z3::expr& view, const z3::expr& w) {
    return pred.kind == Kind::kForall ? InRange(w) && !Body(pred, s, view, w)
                                      : !Holds(pred, s, view);
  }

  bool TracksRanks() const { return !ranks_.empty(); }
  // Whether `t` is counted by rank count k at `level` in s.
  z3::expr RankCounted(std::size_t k, const State& s, const z3::expr& t, const z3::expr& level) {
    const Expr& c = *ranks_[k];
    std::vector<z3::expr> bound(p_.num_slots, ctx_.int_val(0));
    bound[c.var] = t;
    bound[*drb::RankParameter(c)] = level;
    z3::expr ignored = ctx_.bool_val(false);  // the body reads locations and locals only
    return Eval(*c.args[0], s, t, bound, &ignored) != 0;
  }
  // What holds of every state's rank counts at `level` (any integer), stated there only (over
  // every level the solver would have a function to find): each lies in 0..n; where it is
  // positive a thread (a fresh one, in `witnesses`) is counted, and where it is below n one is
  // not; it counts at least the distinct threads of `named` it holds for and leaves out at least
  // those it does not hold for; and one level below it counts, besides, every named thread it
  // counts there but not at `level` (a rank count's threads at p + 1 are among those at p).
  z3::expr RankFacts(const State& s, const z3::expr& level, const std::vector<z3::expr>& named,
                     std::vector<z3::expr>& witnesses) {
    z3::expr_vector parts(ctx_);
    const z3::expr below = level - 1;
    const std::vector<z3::expr> first = FirstOccurrences(named);
    for (std::size_t k = 0; k < ranks_.size(); ++k) {
      const z3::expr r = z3::select(s.ranks[k], level);
      parts.push_back(r >= 0 && r <= n_);
      const z3::expr in = Thread("r");
      const z3::expr out = Thread("r");
      witnesses.push_back(in);
      witnesses.push_back(out);
      parts.push_back(z3::implies(r >= 1, InRange(in) && RankCounted(k, s, in, level)));
      parts.push_back(z3::implies(r < n_, InRange(out) && !RankCounted(k, s, out, level)));
      z3::expr counted = ctx_.int_val(0);
      z3::expr left_out = ctx_.int_val(0);
      z3::expr between = ctx_.int_val(0);
      for (std::size_t a = 0; a < named.size(); ++a) {
        const z3::expr here = RankCounted(k, s, named[a], level);
        counted = counted + Truth(first[a] && here);
        left_out = left_out + Truth(first[a] && !here);
        between = between + Truth(first[a] && !here && RankCounted(k, s, named[a], below));
      }
      parts.push_back(r >= counted && n_ - r >= left_out);
      parts.push_back(z3::select(s.ranks[k], below) >= r + between);
    }
    return z3::mk_and(parts);
  }

  bool TracksCounts() const { return !counts_.empty(); }
  // For each of `ids`: that it is a thread and none of the ids before it (each thread once).
  std::vector<z3::expr> FirstOccurrences(const std::vector<z3::expr>& ids) {
    std::vector<z3::expr> first;
    for (std::size_t a = 0; a < ids.size(); ++a) {
      z3::expr f = InRange(ids[a]);
      for (std::size_t b = 0; b < a; ++b) f = f && ids[b] != ids[a];
      first.push_back(f);
    }
    return first;
  }
  // What holds of each value count at the threads `named` and at fresh witnesses (one counted
  // where it is positive, one not where it is below n): it covers the distinct ones it counts and
  // leaves out the others, which relates counts that overlap, as Witnessed does not.
  z3::expr CountFacts(const State& s, const std::vector<z3::expr>& named) {
    z3::expr_vector parts(ctx_);
    std::vector<z3::expr> all = named;
    for (std::size_t k = 0; k < counts_.size(); ++k) {
      const z3::expr in = Thread("v");
      const z3::expr out = Thread("v");
      all.push_back(in);
      all.push_back(out);
      parts.push_back(z3::implies(s.counts[k] >= 1, InRange(in) && Counted(k, s, in)));
      parts.push_back(z3::implies(s.counts[k] < n_, InRange(out) && !Counted(k, s, out)));
    }
    const std::vector<z3::expr> first = FirstOccurrences(all);
    for (std::size_t k = 0; k < counts_.size(); ++k) {
      z3::expr counted = ctx_.int_val(0);
      z3::expr left_out = ctx_.int_val(0);
      for (std::size_t a = 0; a < all.size(); ++a) {
        const z3::expr here = Counted(k, s, all[a]);
        counted = counted + Truth(first[a] && here);
        left_out = left_out + Truth(first[a] && !here);
      }
      parts.push_back(s.counts[k] >= counted && n_ - s.counts[k] >= left_out);
    }
    return z3::mk_and(parts);
  }

  // StatementEncoder: a step writes thread t's copy of a local, and moves t.
  void WritePair(State& s, const Instr::Target& x, const z3::expr& row, const z3::expr& column,
                 const z3::expr& value) {
    if (!ordered_) throw Unsupported{"a per-pair array"};
    z3::expr_vector at(ctx_);
    at.push_back(row);
    at.push_back(column);
    s.pairs[x.var] = z3::store(s.pairs[x.var], at, value);
  }
  z3::expr OutOfRange(const Instr::Target& x, const z3::expr& index) {
    if (x.size == 0 && !ordered_) throw Unsupported{"writing another thread's entry"};
    if (x.size == 0) return !InRange(index);
    return index < 0 || index >= static_cast<int>(x.size);
  }
  // `forall j: a[j] := ...` is checked at one thread count only.
  [[noreturn]] static std::uint32_t EachCount() {
    throw Unsupported{"an update of every thread's entry in one step"};
  }
  z3::expr IsThread(const z3::expr& t, std::uint32_t j) { return t == static_cast<int>(j); }
  static z3::expr LocalOf(const State& s, std::uint32_t var, std::uint32_t j) {
    return z3::select(s.locals[var], static_cast<int>(j));
  }
  void Write(State& s, const Instr::Target& x, const z3::expr& t, const z3::expr* index,
             const z3::expr& value) {
    if (x.size == 0 && index != nullptr) {  // another thread's entry (ordered: an id)
      const State before = s;
      s.locals[x.var] = z3::store(s.locals[x.var], *index, value);
      Recount(before, s, *index);
      return;
    }
    for (std::uint32_t k = 0; k < (index != nullptr ? x.size : 1); ++k) {
      const z3::expr v = index == nullptr ? value
                                          : z3::ite(*index == static_cast<int>(k), value,
                                                    x.local ? z3::select(s.locals[x.var + k], t)
                                                            : s.shared[x.var + k]);
      if (x.local) {
        const State before = s;
        s.locals[x.var + k] = z3::store(s.locals[x.var + k], t, v);
        Recount(before, s, t);
      } else {
        s.shared[x.var + k] = v;
      }
    }
  }
  void MoveTo(State& s, const z3::expr& t, std::uint32_t location) {
    const State before = s;
    s.pc = z3::store(s.pc, t, ctx_.int_val(location));
    Recount(before, s, t);
  }

 private:
  std::string Name(const std::string& stem) { return fmt::format("{}!{}", stem, next_++); }

  // `count(i: body) OP k` with k a number: "at least m threads in range satisfy body" is m
  // distinct threads that do.
  z3::expr CompareCount(const Expr& e, const State& s, const z3::expr& self,
                        std::vector<z3::expr>& bound, z3::expr* fail) {
    const bool left = e.args[0]->kind == Kind::kCount;
    const Expr& c = *e.args[left ? 0 : 1];
    const Expr& k = *e.args[left ? 1 : 0];
    if (k.kind != Kind::kNumber) throw Unsupported{"a `count` compared with other than a number"};
    Op op = e.op;  // as count OP k
    if (!left && op >= Op::kLt) {
      op = op == Op::kLt ? Op::kGt : op == Op::kLe ? Op::kGe : op == Op::kGt ? Op::kLt : Op::kLe;
    }
    const auto at_least = [&](const drb::Int& m) -> z3::expr {
      if (m <= 0) return ctx_.bool_val(true);
      // m distinct witnesses, stated one by one: past kMaxWitnesses the claim is refused, never
      // assumed (a count above 64 with `false` here made `count(...) < 65` hold at any count).
      if (m > kMaxWitnesses) {
        throw Unsupported{
            fmt::format("a `count` compared with {} ({} distinct witnesses, over the {} it states)",
                        k.value.str(), m.str(), kMaxWitnesses)};
      }
      z3::expr_vector ids(ctx_);
      z3::expr_vector each(ctx_);
      z3::expr body_fail = ctx_.bool_val(false);
      for (drb::Int j = 0; j < m; ++j) {
        const z3::expr i = Thread("c");
        bound[c.var] = i;
        ids.push_back(i);
        each.push_back(Eval(*c.args[0], s, self, bound, &body_fail) != 0);
        if (c.exclude_self) each.push_back(i != self);
      }
      if (ids.size() > 1) each.push_back(z3::distinct(ids));
      return Exists(ids, z3::mk_and(each));
    };
    {  // every body is evaluated: an error for any thread in range fails the statement
      const z3::expr i = Thread("c");
      bound[c.var] = i;
      z3::expr body_fail = ctx_.bool_val(false);
      Eval(*c.args[0], s, self, bound, &body_fail);
      *fail = *fail || Exists(i, (c.exclude_self ? i != self : ctx_.bool_val(true)) && body_fail);
    }
    const drb::Int& m = k.value;
    switch (op) {
      case Op::kGe:
        return Truth(at_least(m));
      case Op::kGt:
        return Truth(at_least(m + 1));
      case Op::kLe:
        return Truth(!at_least(m + 1));
      case Op::kLt:
        return Truth(!at_least(m));
      case Op::kEq:
        return Truth(at_least(m) && !at_least(m + 1));
      default:
        return Truth(!(at_least(m) && !at_least(m + 1)));  // !=
    }
  }

  // Whether thread `t` is counted by tracked count k in s.
  z3::expr Counted(std::size_t k, const State& s, const z3::expr& t) {
    const Expr& c = *counts_[k];
    std::vector<z3::expr> bound(p_.num_slots, ctx_.int_val(0));
    bound[c.var] = t;
    z3::expr ignored = ctx_.bool_val(false);  // the body reads locations and locals only
    return Eval(*c.args[0], s, t, bound, &ignored) != 0;
  }
  // `after` differs from `before` in thread t's entries only: each count changes by t's change.
  void Recount(const State& before, State& after, const z3::expr& t) {
    for (std::size_t k = 0; k < after.counts.size(); ++k) {
      after.counts[k] =
          before.counts[k] - Truth(Counted(k, before, t)) + Truth(Counted(k, after, t));
    }
    for (std::size_t k = 0; k < after.ranks.size(); ++k) {
      const z3::expr level = ctx_.int_const(Name("l").c_str());
      after.ranks[k] = z3::lambda(level, z3::select(before.ranks[k], level) -
                                             Truth(RankCounted(k, before, t, level)) +
                                             Truth(RankCounted(k, after, t, level)));
    }
  }

  z3::expr CountValue(const Expr& e, const State& s, const z3::expr& self,
                      std::vector<z3::expr>& bound, z3::expr* fail) {
    {  // every body is evaluated: an error for any thread in range fails the statement
      const z3::expr i = Thread("c");
      bound[e.var] = i;
      z3::expr body_fail = ctx_.bool_val(false);
      Eval(*e.args[0], s, self, bound, &body_fail);
      *fail = *fail || Exists(i, (e.exclude_self ? i != self : ctx_.bool_val(true)) && body_fail);
    }
    z3::expr all = n_;
    const auto rank = std::find_if(ranks_.begin(), ranks_.end(),
                                   [&](const Expr* c) { return drb::SameCount(*c, e); });
    if (rank != ranks_.end() && !s.ranks.empty()) {
      all = z3::select(s.ranks[static_cast<std::size_t>(rank - ranks_.begin())],
                       bound[*drb::RankParameter(e)]);
    } else if (!drb::CountsEveryThread(e)) {
      const auto it = std::find_if(counts_.begin(), counts_.end(),
                                   [&](const Expr* c) { return drb::SameCount(*c, e); });
      if (it == counts_.end() || s.counts.empty()) {
        throw Unsupported{
            "a `count` of more than the threads' own states, not compared with a number,"};
      }
      all = s.counts[static_cast<std::size_t>(it - counts_.begin())];
    }
    if (!e.exclude_self) return all;
    bound[e.var] = self;
    z3::expr ignored = ctx_.bool_val(false);
    return all - Truth(Eval(*e.args[0], s, self, bound, &ignored) != 0);
  }

  z3::expr ThreadOf(const Expr& holder, const State& s, const z3::expr& self,
                    std::vector<z3::expr>& bound, z3::expr* fail) {
    if (holder.args.empty() || holder.args[0]->kind == Kind::kSelf) return self;
    if (holder.args[0]->kind == Kind::kBound) return bound[holder.args[0]->var];
    if (!ordered_) throw Unsupported{"an index that is not a thread"};
    z3::expr i = Eval(*holder.args[0], s, self, bound, fail);  // an id held in a variable
    *fail = *fail || !InRange(i);
    return i;
  }

  bool ordered_;
  z3::sort thread_;
  z3::expr n_;
  // Adds the counts one statement or predicate reads (`here`) to counts_ and each two of them to
  // together_.
  void Read(const std::vector<const Expr*>& here) {
    std::vector<std::size_t> at;
    for (const Expr* e : here) {
      std::size_t k = 0;
      while (k < counts_.size() && !drb::SameCount(*counts_[k], *e)) ++k;
      if (k == counts_.size()) counts_.push_back(e);
      at.push_back(k);
    }
    for (std::size_t x = 0; x < at.size(); ++x) {
      for (std::size_t y = 0; y < at.size(); ++y) {
        if (at[x] < at[y]) together_.insert({at[x], at[y]});
      }
    }
  }

  std::vector<const Expr*> counts_;
  std::set<std::pair<std::size_t, std::size_t>> together_;  // indices into counts_
  std::vector<const Expr*> ranks_;  // ordered: the abstraction's rank counts, one of each
  std::uint64_t next_ = 0;
};

}  // namespace druba::check::every_count
