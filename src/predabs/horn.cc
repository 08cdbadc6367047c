#include "predabs/horn.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "common/resources.h"
#include "predabs/encoder.h"

namespace druba::predabs {
namespace {

// Where statement `stmt` can send its thread: its next statement, a goto's target, the error
// location.
void GotoTargets(const std::vector<Instr>& block, std::vector<std::uint32_t>& out) {
  for (const Instr& op : block) {
    if (op.kind == Instr::Kind::kGoto) out.push_back(op.label);
    for (const auto& inner : op.blocks) GotoTargets(inner, out);
  }
}

std::vector<std::uint32_t> Targets(const Program& program, std::uint32_t stmt) {
  std::vector<std::uint32_t> out{program.statements[stmt].next};
  GotoTargets(program.statements[stmt].body, out);
  out.push_back(program.error_pc);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// A relation argument: its `.drb` text (empty: not expressible) and whether it is a Boolean.
struct Arg {
  std::string text;
  bool boolean = false;
};

// Reads the solver's invariants back as `.drb` text.
class Reader {
 public:
  Reader(Solver& s, absl::flat_hash_map<std::string, Arg> args) : s_(s), args_(std::move(args)) {}

  // The atoms of `formula` (comparisons of integers), each added once, in one form per split of
  // the states (Comparison).
  void Atoms(Term formula, std::vector<std::string>& out, absl::flat_hash_set<std::string>& seen) {
    const TermView v = s_.View(formula);
    if (v.kind != TermView::Kind::kApply) return;
    switch (v.fn) {
      case Fn::kAnd:
      case Fn::kOr:
      case Fn::kNot:
      case Fn::kImplies:
        for (const Term a : v.args) Atoms(a, out, seen);
        return;
      case Fn::kIte:
        for (const Term a : v.args) {
          if (IsBoolean(a)) Atoms(a, out, seen);
        }
        return;
      case Fn::kEq:
        if (IsBoolean(v.args[0])) {
          for (const Term a : v.args) Atoms(a, out, seen);
          return;
        }
        [[fallthrough]];
      case Fn::kLe:
      case Fn::kLt:
        for (std::string& text : Comparison(formula, /*split=*/true)) {
          if (seen.insert(text).second) out.push_back(std::move(text));
        }
        return;
      default:
        return;
    }
  }

  // `formula` as a `.drb` Boolean expression of the same meaning, or nothing when some part has
  // no `.drb` text.
  std::optional<std::string> Formula(Term formula) {
    const TermView v = s_.View(formula);
    if (v.kind == TermView::Kind::kBool) return v.value != 0 ? "true" : "false";
    if (v.kind != TermView::Kind::kApply) return {};
    std::vector<std::string> args;
    const auto all = [&](std::size_t from) {
      for (std::size_t i = from; i < v.args.size(); ++i) {
        std::optional<std::string> text = Formula(v.args[i]);
        if (!text) return false;
        args.push_back(std::move(*text));
      }
      return true;
    };
    const auto join = [&](const char* op) {
      return "(" + fmt::format("{}", fmt::join(args, op)) + ")";
    };
    switch (v.fn) {
      case Fn::kAnd:
        if (!all(0)) return {};
        return join(" && ");
      case Fn::kOr:
        if (!all(0)) return {};
        return join(" || ");
      case Fn::kNot:
        if (!all(0)) return {};
        return "!" + args[0];
      case Fn::kImplies:
        if (!all(0)) return {};
        return join(" => ");
      case Fn::kIte:
        if (!IsBoolean(v.args[1]) || !all(0)) return {};
        return fmt::format("(({0} && {1}) || (!{0} && {2}))", args[0], args[1], args[2]);
      case Fn::kEq:
        if (IsBoolean(v.args[0])) {
          if (!all(0)) return {};
          return fmt::format("(({0} && {1}) || (!{0} && !{1}))", args[0], args[1]);
        }
        [[fallthrough]];
      case Fn::kLe:
      case Fn::kLt: {
        std::vector<std::string> cases = Comparison(formula, /*split=*/false);
        if (cases.empty()) return {};
        return cases.size() == 1 ? cases[0]
                                 : "(" + fmt::format("{}", fmt::join(cases, " || ")) + ")";
      }
      default:
        return {};
    }
  }

 private:
  bool IsBoolean(Term t) {
    const TermView v = s_.View(t);
    if (v.kind == TermView::Kind::kBool) return true;
    if (v.kind != TermView::Kind::kApply) return false;
    switch (v.fn) {
      case Fn::kAnd:
      case Fn::kOr:
      case Fn::kNot:
      case Fn::kImplies:
      case Fn::kLe:
      case Fn::kLt:
      case Fn::kEq:
        return true;
      case Fn::kIte:
        return IsBoolean(v.args[1]);
      default:
        return false;
    }
  }

  // The Boolean program variables `t` names.
  void BooleansIn(Term t, std::vector<std::string>& out) {
    const TermView v = s_.View(t);
    if (v.kind == TermView::Kind::kVariable) {
      const auto it = args_.find(v.name);
      if (it != args_.end() && it->second.boolean &&
          std::find(out.begin(), out.end(), v.name) == out.end()) {
        out.push_back(v.name);
      }
      return;
    }
    for (const Term a : v.args) BooleansIn(a, out);
  }

  // An integer comparison as `.drb` text. `.drb` Booleans are not integers: a comparison that
  // involves some (at most 2) is read per value of theirs. Split: each case's comparison alone,
  // in one form per split of the states (an atom of a candidate); otherwise one text per case
  // that holds it up to its exact meaning (`b && x <= 1`), or nothing when a part has no text.
  std::vector<std::string> Comparison(Term t, bool split) {
    std::vector<std::string> booleans;
    BooleansIn(t, booleans);
    std::vector<std::string> out;
    if (booleans.size() > 2) return out;
    for (std::size_t bits = 0; bits < (std::size_t{1} << booleans.size()); ++bits) {
      fixed_.clear();
      std::vector<std::string> cube;
      for (std::size_t i = 0; i < booleans.size(); ++i) {
        const bool on = ((bits >> i) & 1U) != 0;
        fixed_[booleans[i]] = on ? "1" : "0";
        cube.push_back((on ? "" : "!") + args_.at(booleans[i]).text);
      }
      std::optional<std::string> text = Linear(t, split);
      if (split) {
        if (text && *text != "true" && *text != "false") out.push_back(std::move(*text));
        continue;
      }
      if (!text || (!booleans.empty() && args_.at(booleans[0]).text.empty())) {
        fixed_.clear();
        return {};
      }
      if (*text == "false") continue;
      if (*text != "true") cube.push_back(*text);
      out.push_back(cube.empty() ? "true" : "(" + fmt::format("{}", fmt::join(cube, " && ")) + ")");
    }
    fixed_.clear();
    if (!split && out.empty()) out.emplace_back("false");
    return out;
  }

  // sum of coefficient * variable (by `.drb` text, in text order) plus a constant.
  struct Sum {
    std::map<std::string, Int> terms;
    Int constant = 0;
  };
  std::optional<Sum> SumOf(Term t) {
    const TermView v = s_.View(t);
    Sum out;
    switch (v.kind) {
      case TermView::Kind::kNumber:
        out.constant = v.value;
        return out;
      case TermView::Kind::kVariable: {
        if (const auto it = fixed_.find(v.name); it != fixed_.end()) {
          out.constant = Int(it->second);
          return out;
        }
        const auto it = args_.find(v.name);
        if (it == args_.end() || it->second.text.empty() || it->second.boolean) return {};
        out.terms[it->second.text] = 1;
        return out;
      }
      case TermView::Kind::kApply:
        break;
      default:
        return {};
    }
    std::vector<Sum> args;
    for (const Term a : v.args) {
      std::optional<Sum> l = SumOf(a);
      if (!l) return {};
      args.push_back(std::move(*l));
    }
    const auto add = [](Sum& to, const Sum& from, const Int& factor) {
      for (const auto& [name, c] : from.terms) to.terms[name] += factor * c;
      to.constant += factor * from.constant;
    };
    switch (v.fn) {
      case Fn::kAdd:
        for (const Sum& a : args) add(out, a, 1);
        return out;
      case Fn::kSub:
        add(out, args[0], 1);
        add(out, args[1], -1);
        return out;
      case Fn::kNeg:
        add(out, args[0], -1);
        return out;
      case Fn::kMul: {
        Int factor = 1;
        const Sum* varying = nullptr;  // at most one factor with variables
        for (const Sum& a : args) {
          if (a.terms.empty()) {
            factor *= a.constant;
          } else if (varying == nullptr) {
            varying = &a;
          } else {
            return {};
          }
        }
        if (varying == nullptr) {
          out.constant = factor;
        } else {
          add(out, *varying, factor);
        }
        return out;
      }
      default:
        return {};
    }
  }

  // A linear comparison `lhs OP rhs` (OP <=, < or ==) as `.drb` text: `sum <= bound` with the
  // coefficients divided by their gcd, `<` as `<=` (integers), positive terms on the left;
  // "true" or "false" when no variable is left. `split`: the first coefficient made positive,
  // for `<=` by taking the negation, which splits the states alike (one text per atom).
  std::optional<std::string> Linear(Term t, bool split) {
    const TermView v = s_.View(t);
    if (v.kind != TermView::Kind::kApply || v.args.size() != 2) return {};
    std::optional<Sum> lhs = SumOf(v.args[0]);
    std::optional<Sum> rhs = SumOf(v.args[1]);
    if (!lhs || !rhs) return {};
    Sum d = *lhs;  // d OP 0
    for (const auto& [name, c] : rhs->terms) d.terms[name] -= c;
    d.constant -= rhs->constant;
    std::erase_if(d.terms, [](const auto& kv) { return kv.second == 0; });
    const bool equality = v.fn == Fn::kEq;
    if (v.fn == Fn::kLt) d.constant += 1;  // integers: e < 0 is e + 1 <= 0
    if (d.terms.empty()) {
      return (equality ? d.constant == 0 : d.constant <= 0) ? "true" : "false";
    }
    Int g = 0;
    for (const auto& [name, c] : d.terms) g = boost::multiprecision::gcd(g, Int(abs(c)));
    if (equality && d.constant % g != 0) return "false";
    for (auto& [name, c] : d.terms) c /= g;
    // sum <= -constant / g, rounded down; for an equality, exact.
    Int bound = -d.constant;
    bound = bound >= 0 || bound % g == 0 ? Int(bound / g) : Int(bound / g - 1);
    if (split && d.terms.begin()->second < 0) {
      for (auto& [name, c] : d.terms) c = -c;
      // not (sum <= bound) is -sum <= -bound - 1; an equality just changes sides.
      bound = equality ? Int(-bound) : Int(-bound - 1);
    }
    std::string left;
    std::string right;
    for (const auto& [name, c] : d.terms) {
      std::string& side = c > 0 ? left : right;
      const Int m = abs(c);
      side += (side.empty() ? "" : " + ") + (m == 1 ? name : m.str() + " * " + name);
    }
    if (left.empty()) {
      left = "0";
    }
    if (right.empty()) {
      right = bound.str();
    } else if (bound > 0) {
      right += " + " + bound.str();
    } else if (bound < 0) {
      right += " - " + Int(-bound).str();
    }
    return left + (equality ? " == " : " <= ") + right;
  }

  Solver& s_;
  absl::flat_hash_map<std::string, Arg> args_;  // by the solver's variable name
  absl::flat_hash_map<std::string, std::string> fixed_;
};

class HornEncoding {
 public:
  HornEncoding(const Program& program, std::uint32_t threads, bool deadlock, Solver& s)
      : p_(program),
        n_(threads),
        deadlock_(deadlock),
        s_(s),
        enc_(program, s),
        count_(enc_.Fixed(threads)) {
    enc_.SetPointwisePosts(true);
    pre_ = Scalars("h");
    post_ = Scalars("g");
  }

  // The location tuples the control flow reaches; false when there are more than the bound.
  bool Explore() {
    Tuple first;
    for (std::uint32_t i = 0; i < n_; ++i) first.push_back(p_.templates[TemplateOf(i)].first);
    Id(first);
    for (std::size_t at = 0; at < tuples_.size(); ++at) {
      if (tuples_.size() > kMaxHornTuples) return false;
      const Tuple here = tuples_[at];
      for (std::uint32_t i = 0; i < n_; ++i) {
        if (!IsStatement(here[i])) continue;
        for (const std::uint32_t t : Targets(p_, here[i])) {
          if (t == p_.error_pc) continue;
          Tuple next = here;
          next[i] = t;
          Id(next);
        }
      }
    }
    return tuples_.size() <= kMaxHornTuples;
  }

  std::size_t Rules() {
    std::size_t rules = 0;
    for (std::size_t r = 0; r < tuples_.size(); ++r) {
      relations_.push_back(s_.HornRelation(RelationName(tuples_[r]), pre_.all.size()));
    }
    edges_.assign(tuples_.size(), {});
    const SymState init = State(pre_, tuples_[0]);
    s_.HornRule(s_.And({enc_.Initial(init, count_), enc_.WellFormed(init, count_)}),
                Apply(0, pre_));
    ++rules;
    for (std::size_t r = 0; r < tuples_.size(); ++r) {
      const Tuple& here = tuples_[r];
      const SymState pre = State(pre_, here);
      const Term at = s_.And({Apply(r, pre_), enc_.WellFormed(pre, count_)});
      std::vector<Term> stuck;
      bool all_finished = true;  // as IntModel::Finished: at the end, or at a label `end...`
      for (std::uint32_t i = 0; i < n_; ++i) {
        if (!IsStatement(here[i])) continue;
        all_finished = all_finished && p_.statements[here[i]].label.starts_with("end");
        const Term actor = s_.Num(i);
        if (deadlock_) stuck.push_back(s_.Not(enc_.Enabled(here[i], actor, pre, count_)));
        for (const std::uint32_t t : Targets(p_, here[i])) {
          Tuple next = here;
          next[i] = t;
          const SymState post = State(post_, next);
          const Term step = s_.And({at, enc_.Step(here[i], actor, pre, post, count_)});
          if (t == p_.error_pc) {
            rules += s_.HornRule(step, std::nullopt) ? 1 : 0;
          } else if (s_.HornRule(step, Apply(ids_.at(next), post_))) {
            ++rules;
            edges_[r].push_back(ids_.at(next));
          }
        }
      }
      if (deadlock_ && !all_finished) {
        stuck.push_back(at);
        s_.HornRule(s_.And(stuck), std::nullopt);
        ++rules;
      }
    }
    return rules;
  }

  // After kUnsat: the atoms of every relation's interpretation and, when each has `.drb` text,
  // the invariant (the tuples whose relation is empty left out).
  void Read(HornResult& out) {
    absl::flat_hash_map<std::string, Arg> names;
    const auto name = [&](Term var, Arg arg) { names[s_.View(var).name] = std::move(arg); };
    for (std::size_t v = 0; v < p_.shared.size(); ++v) {
      name(pre_.shared[v], {p_.shared[v].name, p_.shared[v].type == Type::kBool});
    }
    for (std::uint32_t i = 0; i < n_; ++i) {
      for (std::size_t v = 0; v < p_.locals.size(); ++v) {
        const Variable& var = p_.locals[v];
        // An element of a local array is named by the viewing thread's copy only.
        std::string text = var.name.find('[') == std::string::npos
                               ? fmt::format("{}[{}]", var.name, i)
                           : i == 0 ? var.name
                                    : std::string();
        name(pre_.locals[i][v], {std::move(text), var.type == Type::kBool});
      }
    }
    Reader reader(s_, std::move(names));
    absl::flat_hash_set<std::string> seen;
    bool whole = true;
    // A relation no rule leads to is empty; the solver's answer for it (its own slicing drops
    // such relations) may say anything.
    std::vector<bool> derivable(tuples_.size(), false);
    std::vector<std::size_t> todo{0};
    derivable[0] = true;
    while (!todo.empty()) {
      const std::size_t r = todo.back();
      todo.pop_back();
      for (const std::size_t next : edges_[r]) {
        if (!derivable[next]) {
          derivable[next] = true;
          todo.push_back(next);
        }
      }
    }
    for (std::size_t r = 0; r < relations_.size(); ++r) {
      if (!derivable[r]) continue;
      const Term formula = s_.HornModel(relations_[r], pre_.all);
      reader.Atoms(formula, out.atoms, seen);
      if (!whole) continue;
      std::optional<std::string> text = reader.Formula(formula);
      if (!text) {
        whole = false;
        out.invariant.clear();
      } else if (*text != "false") {
        out.invariant.push_back({tuples_[r], std::move(*text)});
      }
    }
  }

  std::size_t tuples() const { return tuples_.size(); }

 private:
  // A state's scalars: the shared variables, and each thread's locals.
  struct Scalars {
    std::vector<Term> shared;
    std::vector<std::vector<Term>> locals;  // [thread][variable]
    std::vector<Term> all;                  // the relation's arguments, in that order
  };
  Scalars Scalars(const std::string& tag) {
    struct Scalars out;
    for (const Variable& v : p_.shared) {
      out.shared.push_back(s_.FreshInt(tag + "." + v.name));
      out.all.push_back(out.shared.back());
    }
    for (std::uint32_t i = 0; i < n_; ++i) {
      out.locals.emplace_back();
      for (const Variable& v : p_.locals) {
        out.locals[i].push_back(s_.FreshInt(fmt::format("{}.{}.{}", tag, v.name, i)));
        out.all.push_back(out.locals[i].back());
      }
    }
    return out;
  }

  // The encoder's state for scalars at a location tuple: per-thread arrays as Store chains.
  SymState State(const struct Scalars& x, const Tuple& at) {
    SymState out;
    out.shared = x.shared;
    for (std::size_t v = 0; v < p_.locals.size(); ++v) {
      Term chain = s_.ConstIntArray(0);
      for (std::uint32_t i = 0; i < n_; ++i) chain = s_.Store(chain, s_.Num(i), x.locals[i][v]);
      out.locals.push_back(chain);
    }
    Term pc = s_.ConstIntArray(0);
    for (std::uint32_t i = 0; i < n_; ++i) pc = s_.Store(pc, s_.Num(i), s_.Num(at[i]));
    out.pc = pc;
    return out;
  }

  Term Apply(std::size_t relation, const struct Scalars& x) {
    return s_.HornApply(relations_[relation], x.all);
  }

  std::size_t Id(const Tuple& t) {
    const auto [it, inserted] = ids_.try_emplace(t, tuples_.size());
    if (inserted) tuples_.push_back(t);
    return it->second;
  }

  std::string RelationName(const Tuple& t) {
    std::string name = "at";
    for (const std::uint32_t pc : t) name += "_" + p_.PcName(pc);
    return name;
  }

  bool IsStatement(std::uint32_t pc) const { return pc < p_.statements.size(); }

  std::uint32_t TemplateOf(std::uint32_t thread) const {
    if (p_.templates.size() == 1) return 0;
    std::uint32_t seen = 0;
    for (std::uint32_t t = 0; t < p_.templates.size(); ++t) {
      seen += p_.templates[t].count;
      if (thread < seen) return t;
    }
    return static_cast<std::uint32_t>(p_.templates.size() - 1);
  }

  const Program& p_;
  std::uint32_t n_;
  bool deadlock_;
  Solver& s_;
  Encoder enc_;
  ThreadCount count_;
  struct Scalars pre_;
  struct Scalars post_;
  std::vector<Tuple> tuples_;
  absl::flat_hash_map<Tuple, std::size_t> ids_;
  std::vector<std::uint32_t> relations_;
  std::vector<std::vector<std::size_t>> edges_;  // per tuple, the tuples its rules lead to
};

}  // namespace

HornResult SolveHorn(const Program& program, std::uint32_t threads, bool deadlock,
                     unsigned timeout_ms) {
  const Stopwatch clock;
  HornResult out;
  if (threads == 0 || program.templates.empty()) {
    out.reason = "no threads";
    return out;
  }
  const std::unique_ptr<Solver> solver = MakeZ3Solver(timeout_ms);
  HornEncoding encoding(program, threads, deadlock || program.check_deadlock, *solver);
  const bool fits = encoding.Explore();
  out.tuples = encoding.tuples();
  if (!fits) {
    out.reason = fmt::format("more than {} location tuples", kMaxHornTuples);
    out.seconds = clock.Seconds();
    return out;
  }
  out.rules = encoding.Rules();
  out.answer = solver->HornSolve(timeout_ms);
  if (out.answer == SatResult::kUnsat) {
    encoding.Read(out);
  } else if (out.answer == SatResult::kUnknown) {
    out.reason = solver->HornReason();
  }
  out.seconds = clock.Seconds();
  return out;
}

}  // namespace druba::predabs
