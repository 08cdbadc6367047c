#include "invariants/cube_candidates.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <utility>

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "drb/liveness.h"
#include "drb/ordered.h"
#include "invariants/instance_candidates.h"

namespace druba::predabs {
struct CubeBlocker::Views {
  static constexpr std::size_t kMaxViews = 200'000;  // distinct views recorded, at most
  static constexpr std::uint32_t kAllPairs = 3;      // every pair of a state of this many threads
  // A value beyond int64, or one never read again: no literal says it.
  static constexpr std::int64_t kHuge = std::numeric_limits<std::int64_t>::min();

  static std::int64_t Small(const Int& v) {
    if (v > Int(std::numeric_limits<std::int64_t>::max()) || v <= Int(kHuge)) return kHuge;
    return static_cast<std::int64_t>(v);
  }

  static std::int64_t Sign(std::int64_t a, std::int64_t b) { return a < b ? -1 : a == b ? 0 : 1; }

  // One entry of a view: what a pair of threads (self, j) of a state shows about one thing.
  struct Component {
    enum class Kind : std::uint8_t {
      kPc,     // the location of `role`
      kOrder,  // j against self (-1 or 1)
      kSign,   // a variable against `target`: -1, 0, 1
      kNone,   // an id variable's value where it is negative ("no thread"), else 0
      kValue,  // a variable's value (one that names no thread)
    };
    enum class Target : std::uint8_t { kSelf, kOther, kCount };
    Kind kind = Kind::kPc;
    bool shared = false;
    std::uint32_t var = 0;
    int role = 0;  // a local's or a location's: 0 self, 1 j
    Target target = Target::kSelf;
  };

  // A state's values as int64 (kHuge beyond), decoded once.
  struct Values {
    std::uint32_t threads = 0;
    std::vector<std::int64_t> pc;      // [thread]
    std::vector<std::int64_t> locals;  // [var * threads + thread]
    std::vector<std::int64_t> shared;
    std::int64_t Local(std::uint32_t var, std::uint32_t t) const {
      return locals[std::size_t{var} * threads + t];
    }
  };

  std::vector<Component> components;  // locations first (a mismatch there is found soonest)
  absl::flat_hash_set<std::vector<std::int64_t>> seen;
  bool off = false;
  Places places;
  // [pc][local]: whether a thread's value there may still be read (by itself: drb/liveness.h, or
  // by another thread); a value never read again is left out of the views.
  std::vector<std::vector<bool>> live;
  Values scratch;                    // Record's, reused
  std::vector<std::int64_t> buffer;  // Record's, reused

  explicit Views(const Program& p) : places(PlacesOf(p)), live(drb::LiveLocals(p)) {
    using CKind = Component::Kind;
    using CTarget = Component::Target;
    const drb::IdVariables names = drb::ThreadNamers(p);
    std::vector<bool> read_by_others(p.locals.size(), false);
    for (const Statement& s : p.statements) drb::OthersLocals(s.body, read_by_others);
    for (std::vector<bool>& at : live) {
      for (std::size_t v = 0; v < at.size(); ++v) at[v] = at[v] || read_by_others[v];
    }
    components.push_back({CKind::kPc, false, 0, 0});
    components.push_back({CKind::kPc, false, 0, 1});
    components.push_back({CKind::kOrder});
    const auto variable = [&](bool shared, std::uint32_t v, int role, bool names_threads) {
      if (!names_threads) {
        components.push_back({CKind::kValue, shared, v, role});
        return;
      }
      for (const CTarget t : {CTarget::kSelf, CTarget::kOther, CTarget::kCount}) {
        components.push_back({CKind::kSign, shared, v, role, t});
      }
      components.push_back({CKind::kNone, shared, v, role});
    };
    for (std::uint32_t v = 0; v < p.shared.size(); ++v) {
      variable(true, v, 0, names.shared[v] && p.shared[v].type != Type::kBool);
    }
    for (int role = 0; role < 2; ++role) {
      for (std::uint32_t v = 0; v < p.locals.size(); ++v) {
        if (p.locals[v].name.find('[') != std::string::npos) continue;  // a fixed-size array's
        variable(false, v, role, names.locals[v] && p.locals[v].type != Type::kBool);
      }
    }
  }

  // The view of threads (a, b) of `r` into `out`.
  void ViewOf(const Values& r, std::uint32_t a, std::uint32_t b,
              std::vector<std::int64_t>& out) const {
    out.clear();
    for (const Component& c : components) {
      const std::uint32_t who = c.role == 0 ? a : b;
      if (c.kind == Component::Kind::kPc) {
        out.push_back(r.pc[who]);
        continue;
      }
      if (c.kind == Component::Kind::kOrder) {
        out.push_back(b < a ? -1 : 1);
        continue;
      }
      if (!c.shared && !live[static_cast<std::size_t>(r.pc[who])][c.var]) {
        out.push_back(kHuge);  // never read again
        continue;
      }
      const std::int64_t value = c.shared ? r.shared[c.var] : r.Local(c.var, who);
      if (value == kHuge) {
        out.push_back(kHuge);
        continue;
      }
      switch (c.kind) {
        case Component::Kind::kSign: {
          const std::uint32_t target = c.target == Component::Target::kSelf    ? a
                                       : c.target == Component::Target::kOther ? b
                                                                               : r.threads;
          out.push_back(Sign(value, target));
          break;
        }
        case Component::Kind::kNone:
          out.push_back(value < 0 ? value : 0);
          break;
        default:
          out.push_back(value);
          break;
      }
    }
  }

  // A literal of a cube: component `at` of a view equal to (kEq), at least (kGe) or at most
  // (kLe) the cube's view's. A variable that names no thread gets the two bounds: blocked values
  // generalize to ranges (`x >= 5`), not one value at a time.
  enum Rel : std::uint8_t { kEq, kGe, kLe };
  static std::size_t Lit(std::size_t at, Rel rel) { return at * 3 + rel; }

  static bool Holds(std::int64_t seen_value, std::int64_t value, std::size_t lit) {
    switch (lit % 3) {
      case kEq:
        return seen_value == value;
      case kGe:
        return seen_value >= value;  // kHuge is the least int64
      default:
        return seen_value != kHuge && seen_value <= value;
    }
  }

  bool Matched(const std::vector<std::int64_t>& view, const std::vector<std::size_t>& cube) const {
    return std::any_of(seen.begin(), seen.end(), [&](const std::vector<std::int64_t>& v) {
      return std::all_of(cube.begin(), cube.end(),
                         [&](std::size_t lit) { return Holds(v[lit / 3], view[lit / 3], lit); });
    });
  }

  // The literals of the cube of `view`.
  std::vector<std::size_t> Cube(const Program& p, const std::vector<std::int64_t>& view) const {
    std::vector<std::size_t> out;
    for (std::size_t c = 0; c < view.size(); ++c) {
      const Component& comp = components[c];
      if (comp.kind == Component::Kind::kValue && view[c] != kHuge &&
          (comp.shared ? p.shared[comp.var] : p.locals[comp.var]).type != Type::kBool) {
        out.push_back(Lit(c, kGe));
        out.push_back(Lit(c, kLe));
      } else if (Literal(p, Lit(c, kEq), view[c])) {
        out.push_back(Lit(c, kEq));
      }
    }
    return out;
  }

  // Literal `lit` of a cube whose view has `value` there, and its negation; none where it has no
  // text.
  // `swap`: thread j is named `self` (a cube that says nothing of `self`).
  std::optional<std::pair<std::string, std::string>> Literal(const Program& p, std::size_t lit,
                                                             std::int64_t value,
                                                             bool swap = false) const {
    const Component& c = components[lit / 3];
    const std::string& j = swap ? std::string("self") : places.j;
    const std::string role = c.role == 0 ? "self" : j;
    if (c.kind == Component::Kind::kPc) {
      const std::optional<std::string> label = LabelOf(p, static_cast<std::uint32_t>(value));
      if (!label) return std::nullopt;
      return std::pair{fmt::format("pc[{}] == {}", role, *label),
                       fmt::format("pc[{}] != {}", role, *label)};
    }
    if (c.kind == Component::Kind::kOrder) {
      return value < 0 ? std::pair{j + " < self", j + " > self"}
                       : std::pair{j + " > self", j + " < self"};
    }
    if (value == kHuge) return std::nullopt;
    const Variable& var = c.shared ? p.shared[c.var] : p.locals[c.var];
    const std::string name = c.shared ? var.name : fmt::format("{}[{}]", var.name, role);
    static const char* const kIs[3] = {"<", "==", ">"};
    static const char* const kNot[3] = {">=", "!=", "<="};
    switch (c.kind) {
      case Component::Kind::kSign: {
        const std::string target = c.target == Component::Target::kSelf ? "self"
                                   : c.target == Component::Target::kOther
                                       ? j
                                       : fmt::format("count({}: true)", places.k);
        return std::pair{fmt::format("{} {} {}", name, kIs[value + 1], target),
                         fmt::format("{} {} {}", name, kNot[value + 1], target)};
      }
      case Component::Kind::kNone:
        if (value == 0) return std::pair{name + " >= 0", name + " < 0"};
        return std::pair{fmt::format("{} == {}", name, value),
                         fmt::format("{} != {}", name, value)};
      default:
        if (var.type == Type::kBool) {
          return value != 0 ? std::pair{name, "!" + name} : std::pair{"!" + name, name};
        }
        if (lit % 3 == kGe) {
          return std::pair{fmt::format("{} >= {}", name, value),
                           fmt::format("{} < {}", name, value)};
        }
        if (lit % 3 == kLe) {
          return std::pair{fmt::format("{} <= {}", name, value),
                           fmt::format("{} > {}", name, value)};
        }
        return std::pair{fmt::format("{} == {}", name, value),
                         fmt::format("{} != {}", name, value)};
    }
  }

  // The negation of `cube` (of `view`) as a candidate: over pairs (`forall j: j == self || ...`)
  // where it names both threads, else over `self` alone.
  std::string Text(const Program& p, const std::vector<std::size_t>& cube,
                   const std::vector<std::int64_t>& view) const {
    bool names_self = false;
    bool names_other = false;
    for (const std::size_t lit : cube) {
      const Component& c = components[lit / 3];
      if (c.kind == Component::Kind::kOrder) {
        names_self = names_other = true;
      } else if (c.kind == Component::Kind::kSign && c.target != Component::Target::kCount) {
        (c.target == Component::Target::kSelf ? names_self : names_other) = true;
      }
      if (!c.shared && c.kind != Component::Kind::kOrder) {
        (c.role == 0 ? names_self : names_other) = true;
      }
    }
    const bool swap = names_other && !names_self;
    std::string text;
    for (const std::size_t lit : cube) {
      text += (text.empty() ? "" : " || ") + Literal(p, lit, view[lit / 3], swap)->second;
    }
    if (!names_other || swap) return text;
    return fmt::format("forall {0}: {0} == self || {1}", places.j, text);
  }

  // The order literals are tried for dropping in: what says least about the pair first, the
  // locations last.
  int DropRank(std::size_t lit) const {
    const Component& c = components[lit / 3];
    switch (c.kind) {
      case Component::Kind::kSign:
        return c.target == Component::Target::kCount ? 0 : 3;
      case Component::Kind::kNone:
        return 1;
      case Component::Kind::kValue:
        return 2;
      case Component::Kind::kOrder:
        return 4;
      default:
        return 5 + (1 - c.role);
    }
  }
};

CubeBlocker::CubeBlocker(const Program& program)
    : program_(program), views_(std::make_unique<Views>(program)) {}

CubeBlocker::~CubeBlocker() = default;

void CubeBlocker::Record(const IntModel& model, StateView state) {
  Views& v = *views_;
  if (v.off) return;
  const Program& p = program_;
  const ValueTable& values = model.values();
  Views::Values& r = v.scratch;
  r.threads = model.num_threads();
  r.pc.clear();
  r.locals.clear();
  r.shared.clear();
  for (std::uint32_t t = 0; t < r.threads; ++t) r.pc.push_back(state[model.PcSlot(t)]);
  for (std::uint32_t var = 0; var < p.locals.size(); ++var) {
    for (std::uint32_t t = 0; t < r.threads; ++t) {
      r.locals.push_back(Views::Small(values.Decode(state[model.LocalSlot(t, var)])));
    }
  }
  for (std::uint32_t var = 0; var < p.shared.size(); ++var) {
    r.shared.push_back(Views::Small(values.Decode(state[var])));
  }
  for (std::uint32_t a = 0; a < r.threads; ++a) {
    for (std::uint32_t b = 0; b < r.threads; ++b) {
      if (a == b) continue;
      v.ViewOf(r, a, b, v.buffer);
      if (!v.seen.contains(v.buffer)) v.seen.insert(v.buffer);
    }
  }
  if (v.seen.size() > Views::kMaxViews) {
    v.off = true;
    v.seen.clear();
  }
}

std::vector<std::string> CubeBlocker::Block(const ConcreteState& cti, bool* seen) const {
  const Views& v = *views_;
  std::vector<std::string> out;
  if (seen != nullptr) *seen = false;
  if (v.off) return out;
  bool all_seen = true;
  Views::Values r;
  r.threads = cti.threads;
  r.pc = cti.pc;
  for (const Int& x : cti.locals) r.locals.push_back(Views::Small(x));
  for (const Int& x : cti.shared) r.shared.push_back(Views::Small(x));
  for (std::uint32_t a = 0; a < cti.threads; ++a) {
    for (std::uint32_t b = 0; b < cti.threads; ++b) {
      if (a == b || (cti.threads > Views::kAllPairs && a != cti.mover && b != cti.mover)) continue;
      std::vector<std::int64_t> view;
      v.ViewOf(r, a, b, view);
      std::vector<std::size_t> cube = v.Cube(program_, view);
      if (v.Matched(view, cube)) continue;  // a finite instance reaches it: not blocked here
      all_seen = false;
      std::vector<std::size_t> order = cube;
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t x, std::size_t y) { return v.DropRank(x) < v.DropRank(y); });
      // A literal about a thread's variable keeps the one about its location (the variable
      // says something only where it is live).
      const auto needed = [&](std::size_t c) {
        const Views::Component& at = v.components[c / 3];
        return at.kind == Views::Component::Kind::kPc &&
               std::any_of(cube.begin(), cube.end(), [&](std::size_t x) {
                 const Views::Component& other = v.components[x / 3];
                 return !other.shared && other.role == at.role &&
                        other.kind != Views::Component::Kind::kPc &&
                        other.kind != Views::Component::Kind::kOrder;
               });
      };
      for (const std::size_t c : order) {
        if (needed(c)) continue;
        std::vector<std::size_t> fewer;
        std::copy_if(cube.begin(), cube.end(), std::back_inserter(fewer),
                     [&](std::size_t x) { return x != c; });
        if (!v.Matched(view, fewer)) cube = std::move(fewer);
      }
      out.push_back(v.Text(program_, cube, view));
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  if (seen != nullptr) *seen = all_seen;
  return out;
}

}  // namespace druba::predabs
