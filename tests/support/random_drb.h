// Random `.drb` programs for the differential tests, and breadth-first search under free
// scheduling (every interleaving) as their oracle.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "explore/state_store.h"
#include "interp/model.h"

namespace druba::predabs {

// Random symmetric programs over shared x, y and local l whose values stay in {0, 1, 2}.
class Generator {
 public:
  // With `division`, expressions may divide by variables and quantifier bodies may fail: the
  // runtime errors the interpreter and the encoding must agree on.
  explicit Generator(std::uint32_t seed, bool division = false) : rng_(seed), division_(division) {}
  // With `structured`, programs also have a per-thread array `a[threads]` (read as a[self], a[i]
  // and a[(expression)], written as a[self]) and loops with bodies.
  void SetStructured(bool on) { structured_ = on; }
  // With `unbounded`, some assignments add to a variable without the modulo that bounds the
  // others (`x := x + 1`): counters that grow without bound.
  void SetUnbounded(bool on) { unbounded_ = on; }
  // With `count_values`, integer expressions may be counts of the threads' own states, of the
  // other threads', and the thread count (`count(k: pc[k] == s1)`, `count(k != self: l[k] == 2)`,
  // `count(k: true)`): values the symbolic thread count tracks per state.
  void SetCountValues(bool on) { count_values_ = on; }
  // With `ordered`, threads compare ids: a shared `o` holds an id or -1 (`o := self`, `o := -1`),
  // conditions compare it with `self` and range over the threads below or above one's own
  // (`forall i: i >= self || l[i] != 1`): programs that are not symmetric.
  void SetOrdered(bool on) { ordered_ = on; }
  // With `pairs`, programs also have a per-pair array `p[threads][threads]`, read and written at
  // the thread's own row or column or neither, with the other indices computed
  // (`p[self][(y % 3)]`, `p[(x % 3)][(y % 3)]`: out of range at times) and read in quantifiers
  // (`p[i][self]`); predicates read `p[self][self]`.
  void SetPairs(bool on) { pairs_ = on; }

  // The text of the program made last.
  const std::string& Last() const { return last_; }

  std::string Program(std::uint32_t threads, int statements, bool asserts, int predicates,
                      bool track_pc) {
    last_ = MakeProgram(threads, statements, asserts, predicates, track_pc);
    return last_;
  }

 private:
  std::string MakeProgram(std::uint32_t threads, int statements, bool asserts, int predicates,
                          bool track_pc) {
    k_ = statements;
    std::string out = "shared int x = " + std::to_string(R(0, 2)) +
                      ";\nshared int y = " + std::to_string(R(0, 2)) +
                      ";\nlocal int l = " + std::to_string(R(0, 2)) + ";\n";
    if (ordered_) out += "shared int o = -1;\n";
    if (pairs_) out += "shared int p[threads][threads] = " + std::to_string(R(0, 2)) + ";\n";
    if (structured_) {
      out += "shared int a[threads] = " + std::to_string(R(0, 2)) +
             ";\nshared int b[2] = " + std::to_string(R(0, 2)) +
             ";\nlocal int c[2] = " + std::to_string(R(0, 2)) + ";\n";
    }
    out += "thread T * " + std::to_string(threads) + " {\n";
    for (int i = 0; i < statements; ++i) {
      if (structured_ && R(0, 4) == 0 && i + 2 < statements) {  // an if with statement blocks
        out += "  s" + std::to_string(i) + ": if " + Cond(false) + " then {\n    s" +
               std::to_string(i + 1) + ": " + Statement(asserts) + ";\n  }";
        if (R(0, 1) == 0) {
          out += " else {\n    s" + std::to_string(i + 2) + ": " + Statement(asserts) + ";\n  }\n";
          i += 2;
        } else {
          out += "\n";
          i += 1;
        }
        continue;
      }
      if (structured_ && R(0, 3) == 0) {  // a loop whose body is the next one or two statements
        const int body = std::min(R(1, 2), statements - 1 - i);
        if (body >= 1) {
          out += "  s" + std::to_string(i) + ": while " + Cond(false) + " do {\n";
          for (int b = 1; b <= body; ++b) {
            out += "    s" + std::to_string(i + b) + ": " + Statement(asserts) + ";\n";
          }
          out += "  }\n";
          i += body;
          continue;
        }
      }
      out += "  s" + std::to_string(i) + ": " + Statement(asserts) + ";\n";
    }
    out += "}\nabstraction a {\n";
    if (track_pc) out += "  track pc;\n";
    in_predicate_ = true;  // a predicate's thread index is a number or a bound variable
    for (int i = 0; i < predicates; ++i) {
      out += "  predicate p" + std::to_string(i) + ": " + Cond(true) + ";\n";
    }
    in_predicate_ = false;
    return out + "}\n";
  }

  int R(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  // Structured: also the own entry of a[threads], another thread's (an index that may be out of
  // range), and elements of the fixed-size arrays b[2] (shared) and c[2] (local) chosen at run
  // time (x % 3 may be 2: out of range) or by a number.
  std::string Var() {
    if (pairs_ && R(0, 2) == 0) {
      static const char* const kEntries[] = {"p[self][(y % 3)]", "p[(x % 3)][self]",
                                             "p[(y % 3)][(x % 3)]"};
      return in_predicate_ ? "p[self][self]" : kEntries[R(0, 2)];
    }
    if (structured_ && R(0, 2) == 0) {
      static const char* const kElements[] = {"a[self]", "a[(y % 3)]", "b[(x % 3)]", "c[(l % 2)]",
                                              "b[1]"};
      const int k = R(0, 4);
      // In a predicate a thread index is a number or a bound variable (the same draws either way).
      return in_predicate_ && k == 1 ? "a[self]" : kElements[k];
    }
    return std::string(1, "xyl"[R(0, 2)]);
  }
  std::string Atom() {
    static const char* const kAtoms[] = {"x", "y", "l", "0", "1", "2"};
    if (count_values_ && R(0, 4) == 0) {
      switch (R(0, 3)) {
        case 0:
          return "count(k: pc[k] == s" + std::to_string(R(0, k_ - 1)) + ")";
        case 1:
          return "count(k != self: l[k] == " + std::to_string(R(0, 2)) + ")";
        case 2:
          return "count(k: true)";
        default:
          return "count(k: l[k] < 2 && pc[k] != s" + std::to_string(R(0, k_ - 1)) + ")";
      }
    }
    if (pairs_ && R(0, 3) == 0) {
      static const char* const kEntries[] = {"p[self][(x % 3)]", "p[(l % 3)][self]",
                                             "p[(x % 3)][(y % 3)]"};
      return in_predicate_ ? "p[self][self]" : kEntries[R(0, 2)];
    }
    if (structured_ && R(0, 4) == 0) {
      static const char* const kElements[] = {"a[self]", "a[(x % 3)]", "b[(y % 3)]", "c[(x % 2)]",
                                              "c[0]"};
      return in_predicate_ ? "a[self]" : kElements[R(0, 4)];
    }
    return kAtoms[R(0, 5)];
  }
  std::string Int(int depth) {
    if (depth == 0 || R(0, 2) == 0) return Atom();
    // Linear arithmetic only (a product of two variables makes the queries nonlinear, which the
    // solver may not decide; druba then says unknown, which these tests cannot compare).
    const int op = R(0, division_ ? 3 : 2);
    if (op == 3) return "(" + Int(depth - 1) + (R(0, 1) == 0 ? " / " : " % ") + Var() + ")";
    if (op == 2) return "(" + std::to_string(R(0, 2)) + " * " + Int(depth - 1) + ")";
    return "(" + Int(depth - 1) + (op == 0 ? " + " : " - ") + Int(depth - 1) + ")";
  }
  std::string Value() {
    if (unbounded_ && R(0, 2) == 0) {
      return std::string(1, "xyl"[R(0, 2)]) + (R(0, 3) == 0 ? " - " : " + ") +
             std::to_string(R(1, 2));
    }
    return "(" + Int(2) + ") % 3";
  }
  std::string Cond(bool quantifiers) {
    static const char* const kCmp[] = {" == ", " != ", " < ", " <= "};
    if (ordered_ && !in_predicate_ && R(0, 3) == 0) {
      switch (R(0, 4)) {
        case 0:
          return std::string("o") + kCmp[R(0, 3)] + "self";
        case 1:
          return "o == -1";
        case 2:
          return "(forall i: i >= self || l[i] != " + Atom() + ")";
        case 3:
          return "(exists i: i > self && l[i] == " + Atom() + ")";
        default:
          return "(forall i != self: i < self || pc[i] != s" + std::to_string(R(0, k_ - 1)) + ")";
      }
    }
    const int kind = R(0, quantifiers ? 9 : 6);
    if (kind <= 3) return Int(1) + kCmp[R(0, 3)] + Int(1);
    if (kind == 4) return "!(" + Int(1) + " == " + Int(1) + ")";
    if (kind == 5) return "(" + Cond(false) + " && " + Cond(false) + ")";
    if (kind == 6) return "(" + Cond(false) + " || " + Cond(false) + ")";
    if (kind == 7 && division_) return "(forall i != self: (x / (l[i] - 1)) != " + Atom() + ")";
    if (kind == 7 && structured_) return "(forall i != self: a[i] != " + Atom() + ")";
    if (kind == 7 && pairs_) return "(forall i != self: p[i][self] != " + Atom() + ")";
    if (kind == 7) return "(forall i != self: l[i] != " + Atom() + ")";
    if (kind == 8) return "(exists i: l[i] == " + Atom() + ")";
    return "(count(i: pc[i] == s" + std::to_string(R(0, k_ - 1)) +
           ") >= " + std::to_string(R(1, 2)) + ")";
  }
  std::string Label() {
    return R(0, k_) == k_ ? std::string("end") : "s" + std::to_string(R(0, k_ - 1));
  }
  std::string Statement(bool asserts) {
    if (ordered_ && R(0, 4) == 0) return R(0, 2) == 0 ? "o := -1" : "o := self";
    switch (R(0, asserts ? 8 : 7)) {
      case 0:
        return Var() + " := " + Value();
      case 1:
        return "x := " + Value() + ", l := " + Value();
      case 2:
        return "if " + Cond(true) + " then goto " + Label() + " else goto " + Label();
      case 3:
        return "assume " + Cond(true);
      case 4:
        return "while " + Cond(false) + " do";
      case 5:
        return "choose { " + Var() + " := " + Value() + " } or { goto " + Label() + " }";
      case 6:
        return "atomic { y := " + Value() + "; if " + Cond(false) + " then { l := " + Value() +
               " } else { goto " + Label() + " } }";
      case 7:
        return "goto " + Label();
      default:
        return "assert " + Cond(true);
    }
  }

  std::mt19937 rng_;
  bool division_;
  bool structured_ = false;
  bool unbounded_ = false;
  bool count_values_ = false;
  bool ordered_ = false;
  bool pairs_ = false;
  bool in_predicate_ = false;
  int k_ = 1;
  std::string last_;
};

// Breadth-first search under free scheduling (all interleavings): `visit(state, depth)` for every
// reachable state, layer by layer; it stops when `visit` returns true. Returns that depth.
template <class Visit>
std::optional<std::size_t> BreadthFirst(IntModel& model, Visit&& visit) {
  StateStore seen(model.state_width());
  std::vector<std::uint32_t> layer;
  model.ForEachInitial([&](StateView s) { layer.push_back(seen.FindOrInsert(s).id); });
  for (std::size_t depth = 0; !layer.empty(); ++depth) {
    std::vector<std::uint32_t> next;
    for (const std::uint32_t id : layer) {
      const std::vector<Word> state(seen.Get(id).begin(), seen.Get(id).end());
      if (visit(state, depth)) return depth;
      for (std::uint32_t t = 0; t < model.num_threads(); ++t) {
        model.ForEachSuccessor(StateView(state), t, [&](std::uint32_t, StateView s) {
          const auto found = seen.FindOrInsert(s);
          if (found.is_new) next.push_back(found.id);
        });
      }
    }
    layer = std::move(next);
  }
  return std::nullopt;
}

}  // namespace druba::predabs
