#include "invariants/horn_text.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include <fmt/format.h>

namespace druba::predabs {

using Term = Solver::Term;

namespace {
// |v|, evaluated at once (Boost's abs() builds an expression template, in which the static
// analyzer sees a reference to a temporary escape).
Int Magnitude(const Int& v) {
  return v < 0 ? Int(-v) : v;
}
}  // namespace

void HornText::Atoms(Term formula, std::vector<std::string>& out,
                     absl::flat_hash_set<std::string>& seen) {
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

std::optional<std::string> HornText::Formula(Term formula) {
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
      return cases.size() == 1 ? cases[0] : "(" + fmt::format("{}", fmt::join(cases, " || ")) + ")";
    }
    default:
      return {};
  }
}

bool HornText::IsBoolean(Term t) {
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

void HornText::BooleansIn(Term t, std::vector<std::string>& out) {
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

std::vector<std::string> HornText::Comparison(Term t, bool split) {
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

std::optional<HornText::Sum> HornText::SumOf(Term t) {
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
  switch (v.fn) {
    case Fn::kAdd:
      for (const Sum& a : args) Add(out, a, 1);
      return out;
    case Fn::kSub:
      Add(out, args[0], 1);
      Add(out, args[1], -1);
      return out;
    case Fn::kNeg:
      Add(out, args[0], -1);
      return out;
    case Fn::kMul:
      return ProductOf(args);
    default:
      return {};
  }
}

void HornText::Add(Sum& to, const Sum& from, const Int& factor) {
  for (const auto& [name, c] : from.terms) to.terms[name] += factor * c;
  to.constant += factor * from.constant;
}

std::optional<HornText::Sum> HornText::ProductOf(const std::vector<Sum>& args) {
  Sum out;
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
    Add(out, *varying, factor);
  }
  return out;
}

std::optional<std::string> HornText::Linear(Term t, bool split) {
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
  for (const auto& [name, c] : d.terms) g = boost::multiprecision::gcd(g, Magnitude(c));
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
    const Int m = Magnitude(c);
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

}  // namespace druba::predabs
