// The checker's encoding of a `.drb` program at one thread count (threads unrolled, quantifiers
// expanded), shared by its checks of the predicates certificate (drb_check.cc) and of the
// invariant certificate (drb_invariant.cc).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <z3++.h>

#include "check/drb_steps.h"
#include "common/diagnostics.h"
#include "common/json_reader.h"
#include "drb/ast.h"
#include "drb/parser.h"

namespace druba::check {

// A symbolic state of the program with n threads: the shared variables, and per thread its
// location, its locals and its row of each per-pair array.
struct Sym {
  std::vector<z3::expr> shared;
  std::vector<z3::expr> pc;
  std::vector<std::vector<z3::expr>> locals;
  std::vector<std::vector<std::vector<z3::expr>>> pairs;  // [row][array][column]
};

// The checker's own encoding of the `.drb` semantics (docs/drb.md) for a fixed thread count:
// quantifiers over threads are unrolled, every subexpression is evaluated (a runtime error in any
// of them fails the statement), division is Euclidean, and a failure sends the thread to `error`.
class Encoding : public StatementEncoder<Encoding, Sym, std::uint32_t> {
  using Kind = Expr::Kind;

 public:
  Encoding(const drb::Program& program, std::uint32_t n, z3::context& ctx)
      : StatementEncoder(program, ctx), n_(n) {
    for (std::uint32_t t = 0; t < program.templates.size(); ++t) {
      const std::uint32_t count = program.templates.size() == 1 ? n : program.templates[t].count;
      for (std::uint32_t c = 0; c < count; ++c) template_of_.push_back(t);
    }
    if (template_of_.size() != n) throw InputError({program.file, 0, 0}, "thread count mismatch");
  }

  const drb::Program& program() const { return p_; }

  Sym Fresh(const std::string& tag) {
    Sym s;
    for (const auto& v : p_.shared) s.shared.push_back(ctx_.int_const((tag + v.name).c_str()));
    for (std::uint32_t t = 0; t < n_; ++t) {
      s.pc.push_back(ctx_.int_const(fmt::format("{}pc{}", tag, t).c_str()));
      s.locals.emplace_back();
      for (const auto& v : p_.locals) {
        s.locals[t].push_back(ctx_.int_const(fmt::format("{}{}{}", tag, v.name, t).c_str()));
      }
      s.pairs.emplace_back();
      for (const auto& v : p_.pairs) {
        s.pairs[t].emplace_back();
        for (std::uint32_t c = 0; c < n_; ++c) {
          s.pairs[t].back().push_back(
              ctx_.int_const(fmt::format("{}{}.{}.{}", tag, v.name, t, c).c_str()));
        }
      }
    }
    return s;
  }

  // s is the initial state: every variable at its initial value, every thread at its first
  // statement.
  z3::expr Initial(const Sym& s) {
    z3::expr_vector init(ctx_);
    for (std::size_t v = 0; v < p_.shared.size(); ++v) {
      init.push_back(s.shared[v] == ctx_.int_val(p_.shared[v].init.str().c_str()));
    }
    for (std::uint32_t t = 0; t < n_; ++t) {
      init.push_back(s.pc[t] == static_cast<int>(p_.templates[template_of_[t]].first));
      for (std::size_t v = 0; v < p_.locals.size(); ++v) {
        init.push_back(s.locals[t][v] == ctx_.int_val(p_.locals[v].init.str().c_str()));
      }
      for (std::size_t v = 0; v < p_.pairs.size(); ++v) {
        for (const z3::expr& entry : s.pairs[t][v]) {
          init.push_back(entry == ctx_.int_val(p_.pairs[v].init.str().c_str()));
        }
      }
    }
    return z3::mk_and(init);
  }

  // Declared types, every thread at one of its template's statements or its end (not failed).
  z3::expr WellFormed(const Sym& s) {
    z3::expr_vector parts(ctx_);
    const auto typed = [&](const drb::Variable& v, const z3::expr& x) { Typed(v, x, parts); };
    for (std::size_t v = 0; v < p_.shared.size(); ++v) typed(p_.shared[v], s.shared[v]);
    for (std::uint32_t t = 0; t < n_; ++t) {
      const auto& tt = p_.templates[template_of_[t]];
      parts.push_back((s.pc[t] >= static_cast<int>(tt.first) &&
                       s.pc[t] < static_cast<int>(tt.first + tt.size)) ||
                      s.pc[t] == static_cast<int>(tt.end_pc));
      for (std::size_t v = 0; v < p_.locals.size(); ++v) typed(p_.locals[v], s.locals[t][v]);
      for (std::size_t v = 0; v < p_.pairs.size(); ++v) {
        for (const z3::expr& entry : s.pairs[t][v]) typed(p_.pairs[v], entry);
      }
    }
    return z3::mk_and(parts);
  }

  // entry(k) at k == i, as ites over k in 0..size-1 (the last one where i is none of them).
  template <class Entry>
  static z3::expr Pick(const z3::expr& i, std::uint32_t size, const Entry& entry) {
    z3::expr out = entry(size - 1);
    for (std::uint32_t k = size - 1; k-- > 0;)
      out = z3::ite(i == static_cast<int>(k), entry(k), out);
    return out;
  }

  // The value of `e` from thread `self`'s view; *fail collects when its evaluation fails.
  z3::expr Eval(const Expr& e, const Sym& s, std::uint32_t self, std::vector<z3::expr>& bound,
                z3::expr* fail) {
    const auto at = [&](const std::vector<z3::expr>& per_thread, const Expr& holder) {
      if (holder.args.empty()) return per_thread[self];
      const z3::expr i = Eval(*holder.args[0], s, self, bound, fail);
      *fail = *fail || i < 0 || i >= static_cast<int>(n_);
      return Pick(i, n_, [&](std::uint32_t t) { return per_thread[t]; });
    };
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
        return ctx_.int_val(e.value.str().c_str());
      case Kind::kShared:
        return s.shared[e.var];
      case Kind::kLocal: {
        std::vector<z3::expr> column;
        for (std::uint32_t t = 0; t < n_; ++t) column.push_back(s.locals[t][e.var]);
        return at(column, e);
      }
      case Kind::kPc:
        return at(s.pc, e);
      case Kind::kPair: {  // the row's entries at the column, then the row
        const z3::expr row = Eval(*e.args[0], s, self, bound, fail);
        const z3::expr column = Eval(*e.args[1], s, self, bound, fail);
        const auto outside = [&](const z3::expr& i) { return i < 0 || i >= static_cast<int>(n_); };
        *fail = *fail || outside(row) || outside(column);
        return Pick(row, n_, [&](std::uint32_t r) {
          return Pick(column, n_, [&](std::uint32_t c) { return s.pairs[r][e.var][c]; });
        });
      }
      case Kind::kSharedElement:
      case Kind::kLocalElement: {
        const z3::expr i = Eval(*e.args[0], s, self, bound, fail);
        const auto size = static_cast<std::uint32_t>(e.value);
        *fail = *fail || i < 0 || i >= static_cast<int>(size);
        const auto& row = e.kind == Kind::kSharedElement ? s.shared : s.locals[self];
        return Pick(i, size, [&](std::uint32_t k) { return row[e.var + k]; });
      }
      case Kind::kSelf:
        return ctx_.int_val(self);
      case Kind::kBound:
        return bound[e.var];
      case Kind::kUnary: {
        const z3::expr v = Eval(*e.args[0], s, self, bound, fail);
        return e.op == Op::kNot ? z3::ite(v == 0, ctx_.int_val(1), ctx_.int_val(0)) : -v;
      }
      case Kind::kBinary:
        return Binary(e.op, Eval(*e.args[0], s, self, bound, fail),
                      Eval(*e.args[1], s, self, bound, fail), fail);
      case Kind::kForall:
      case Kind::kExists:
      case Kind::kCount:
        break;
    }
    z3::expr count = ctx_.int_val(0);
    for (std::uint32_t i = 0; i < n_; ++i) {
      if (e.exclude_self && i == self) continue;
      bound[e.var] = ctx_.int_val(i);
      const z3::expr body = Eval(*e.args[0], s, self, bound, fail);
      count = count + z3::ite(body != 0, ctx_.int_val(1), ctx_.int_val(0));
    }
    const int range = static_cast<int>(e.exclude_self ? n_ - 1 : n_);
    if (e.kind == Kind::kForall) return z3::ite(count == range, ctx_.int_val(1), ctx_.int_val(0));
    if (e.kind == Kind::kExists) return z3::ite(count > 0, ctx_.int_val(1), ctx_.int_val(0));
    return count;
  }

  std::uint32_t n() const { return n_; }
  std::uint32_t TemplateOf(std::uint32_t t) const { return template_of_[t]; }
  z3::context& ctx() { return ctx_; }

  // StatementEncoder: a step writes thread t's copy of a local, and moves t.
  z3::expr OutOfRange(const Instr::Target& x, const z3::expr& index) {
    return index < 0 || index >= static_cast<int>(x.size > 0 ? x.size : n_);
  }
  std::uint32_t EachCount() const { return n_; }
  z3::expr IsThread(std::uint32_t t, std::uint32_t j) { return ctx_.bool_val(t == j); }
  static z3::expr LocalOf(const Sym& s, std::uint32_t var, std::uint32_t j) {
    return s.locals[j][var];
  }
  void Write(Sym& s, const Instr::Target& x, std::uint32_t t, const z3::expr* index,
             const z3::expr& value) {
    if (index == nullptr) {
      (x.local ? s.locals[t][x.var] : s.shared[x.var]) = value;
    } else if (x.size == 0) {  // thread *index's entry of a per-thread array
      for (std::uint32_t u = 0; u < n_; ++u) {
        s.locals[u][x.var] = z3::ite(*index == static_cast<int>(u), value, s.locals[u][x.var]);
      }
    } else {  // element *index of a fixed-size array
      for (std::uint32_t k = 0; k < x.size; ++k) {
        z3::expr& slot = x.local ? s.locals[t][x.var + k] : s.shared[x.var + k];
        slot = z3::ite(*index == static_cast<int>(k), value, slot);
      }
    }
  }
  void WritePair(Sym& s, const Instr::Target& x, const z3::expr& row, const z3::expr& column,
                 const z3::expr& value) {
    for (std::uint32_t r = 0; r < n_; ++r) {
      for (std::uint32_t c = 0; c < n_; ++c) {
        z3::expr& entry = s.pairs[r][x.var][c];
        entry = z3::ite(row == static_cast<int>(r) && column == static_cast<int>(c), value, entry);
      }
    }
  }
  void MoveTo(Sym& s, std::uint32_t t, std::uint32_t location) { s.pc[t] = ctx_.int_val(location); }

 private:
  std::uint32_t n_;
  std::vector<std::uint32_t> template_of_;
};

// The abstraction of s from thread `view`'s point of view (the tracked locations, each predicate
// as 0/1, false where its evaluation fails; the failed bit is left out: no state of S may have it).
inline std::vector<z3::expr> Alpha(Encoding& enc, const drb::AbstractionSpec& spec, const Sym& s,
                                   std::uint32_t view) {
  std::vector<z3::expr> out;
  for (const auto& pc : spec.pcs) out.push_back(s.pc[pc.thread.value_or(view)]);
  for (const auto& p : spec.predicates) {
    std::vector<z3::expr> bound(enc.program().num_slots, enc.ctx().int_val(0));
    z3::expr failed = enc.ctx().bool_val(false);
    const z3::expr value = enc.Eval(*p.expr, s, view, bound, &failed) != 0;
    out.push_back(z3::ite(value && !failed, enc.ctx().int_val(1), enc.ctx().int_val(0)));
  }
  return out;
}

// The model with a certificate's abstraction block (`block`, a JSON string) after it. The block
// must add one abstraction and nothing else (no thread, variable or declaration).
// An error in the block is placed in the certificate (the block's own line and column), never
// past the model's last line.
inline drb::Program ParseWithBlock(const JsonValue& block, const std::string& source,
                                   const std::string& file) {
  const drb::Program model = drb::ParseProgram(source, file);
  const auto model_lines =
      static_cast<std::uint32_t>(std::count(source.begin(), source.end(), '\n'));
  drb::Program program = [&] {
    try {
      return drb::ParseProgram(source + "\n" + block.AsString(), file);
    } catch (const InputError& e) {
      if (e.where().file != file || e.where().line <= model_lines + 1) throw;
      throw InputError(
          block.where,
          fmt::format(
              "the certificate's abstraction block, at its line {}{}: {}",
              e.where().line - model_lines - 1,
              e.where().column > 0 ? fmt::format(", column {}", e.where().column) : std::string(),
              e.message()));
    }
  }();
  if (program.abstractions.size() != model.abstractions.size() + 1 ||
      program.statements.size() != model.statements.size() ||
      program.templates.size() != model.templates.size() ||
      program.shared.size() != model.shared.size() ||
      program.locals.size() != model.locals.size() || program.pairs.size() != model.pairs.size() ||
      program.check_deadlock != model.check_deadlock) {
    throw InputError(
        block.where,
        "the abstraction must be one `abstraction NAME { ... }` block and nothing else");
  }
  return program;
}

}  // namespace druba::check
