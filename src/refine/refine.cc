#include "refine/refine.h"

#include "refine/preconditions.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "common/diagnostics.h"
#include "interp/program.h"

namespace druba::predabs {
namespace {

bool IsIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string PredicateLine(const Program& program, const Predicate& p) {
  const std::string expr = ExprToString(program, *p.expr);
  if (IsIdentifier(p.name) && p.name != expr) return fmt::format("predicate {}: {};", p.name, expr);
  return fmt::format("predicate {};", p.name);
}

std::string TrackLine(const TrackedPc& pc) {
  return pc.thread ? "track pc[" + std::to_string(*pc.thread) + "];" : "track pc;";
}

std::string BlockText(const std::string& name, const std::vector<std::string>& lines) {
  std::string out = fmt::format("abstraction {} {{\n", name);
  for (const std::string& line : lines) out += fmt::format("  {}\n", line);
  return out + "}\n";
}

}  // namespace

std::string AbstractionBlock(const Program& program, const AbstractionSpec& spec,
                             const std::string& name) {
  std::vector<std::string> lines;
  for (const TrackedPc& pc : spec.pcs) lines.push_back(TrackLine(pc));
  for (const Predicate& p : spec.predicates) lines.push_back(PredicateLine(program, p));
  return BlockText(name, lines);
}

Refiner::Refiner(std::string source, const Program& program, const AbstractionSpec& start,
                 bool every_count, unsigned timeout_ms, std::uint32_t max_rounds,
                 const SolverLog* log, const std::vector<std::string>& first)
    : source_(std::move(source)),
      timeout_ms_(std::min(timeout_ms, kTestTimeoutMs)),
      max_rounds_(max_rounds),
      program_(&program),
      spec_(&start),
      log_(log) {
  name_ = "refined";
  for (int k = 2; std::any_of(program.abstractions.begin(), program.abstractions.end(),
                              [&](const AbstractionSpec& a) { return a.name == name_; });
       ++k) {
    name_ = "refined" + std::to_string(k);
  }
  for (const TrackedPc& pc : start.pcs) pcs_.push_back(TrackLine(pc));
  for (const Predicate& p : start.predicates) lines_.push_back(PredicateLine(program, p));
  every_count_ = every_count;
  for (const Predicate& p : start.predicates) known_.insert(ExprToString(program, *p.expr));
  std::vector<std::string> texts = first;
  const std::vector<std::string> own = CandidatePredicates(program);
  texts.insert(texts.end(), own.begin(), own.end());
  for (std::size_t t = 0; t < texts.size(); ++t) {
    const std::string& text = texts[t];
    if (pool_.size() >= kMaxCandidates) break;
    if (!AddCandidate(text)) continue;
    if (t < first.size()) ++figures_.horn_candidates;
  }
  figures_.candidates = pool_.size();
  for (const std::string& text : pool_) Log("candidate " + text);
}

bool Refiner::AddCandidate(const std::string& text, std::uint32_t generation) {
  const std::unique_ptr<Program> parsed = WithPredicates({"predicate " + text + ";"});
  if (!parsed) return false;
  const AbstractionSpec& spec = parsed->abstractions.back();
  if (every_count_ && !spec.symmetric) return false;
  std::string printed = ExprToString(*parsed, *spec.predicates.back().expr);
  if (!known_.insert(printed).second) return false;
  if (generation > 0) generation_.emplace(std::move(printed), generation);
  pool_.push_back(text);
  return true;
}

void Refiner::AddPreconditions(const Break& at) {
  const std::uint32_t actor = at.failure.thread == kOtherThread ? 1 : at.failure.thread;
  std::size_t added = 0;
  // The assertions' first, then each predicate's own, so that each precondition knows its depth
  // (kMaxPreconditionDepth).
  std::vector<const Expr*> sources{nullptr};
  for (const Predicate& p : spec_->predicates) sources.push_back(p.expr.get());
  for (const Expr* source : sources) {
    std::uint32_t generation = 1;
    if (source != nullptr) {
      const auto found = generation_.find(ExprToString(*program_, *source));
      generation = found == generation_.end() ? 1 : found->second + 1;
    }
    if (generation > kMaxPreconditionDepth) {
      ++figures_.too_deep;
      continue;
    }
    const std::vector<const Expr*> of =
        source == nullptr ? std::vector<const Expr*>{} : std::vector<const Expr*>{source};
    for (const std::string& text : Preconditions(*program_, of, at.failure.action, actor)) {
      if (added == kMaxPreconditionPaths) return;
      if (!AddCandidate(text, generation)) continue;
      ++added;
      ++figures_.candidates;
      ++figures_.precondition_candidates;
      Log("candidate (precondition) " + text);
    }
  }
}

void Refiner::Log(const std::string& line) const {
  if (log_ != nullptr && *log_) (*log_)("druba: refine: " + line);
}

Refiner::~Refiner() = default;

Solver* Refiner::Shared() {
  if (!solver_) solver_ = MakeZ3Solver(timeout_ms_);
  return solver_.get();
}

std::unique_ptr<Program> Refiner::WithPredicates(const std::vector<std::string>& extra) const {
  std::vector<std::string> lines = pcs_;
  lines.insert(lines.end(), lines_.begin(), lines_.end());
  lines.insert(lines.end(), extra.begin(), extra.end());
  try {
    auto parsed = std::make_unique<Program>(
        ParseProgram(source_ + "\n" + BlockText(name_, lines), program_->file));
    // What the next round's abstraction would refuse is no candidate (a thread index that is
    // neither a number nor a quantified thread, a thread the run does not have).
    CheckAbstractionFits(*parsed, parsed->abstractions.back(),
                         fit_threads_ == 0 ? std::nullopt : std::optional(fit_threads_), false);
    return parsed;
  } catch (const InputError&) {
    return nullptr;
  }
}

std::string Refiner::Block() const {
  std::vector<std::string> lines = pcs_;
  lines.insert(lines.end(), lines_.begin(), lines_.end());
  return BlockText(name_, lines);
}

Refiner::Weights Refiner::Weigh(const Break& at) const {
  Weights out;
  if (at.sample == nullptr || at.sample_threads == 0) return out;
  const IntModel model(*program_, at.sample_threads);
  const PredicateAbstraction abs(model, *spec_, timeout_ms_);
  const std::size_t width = model.state_width();
  StateStore groups(abs.width());
  std::vector<Word> alpha(abs.width());
  const std::size_t n = std::min(at.sample->size() / width, kWeighedStates);
  for (std::size_t i = 0; i < n; ++i) {
    const StateView state(at.sample->data() + i * width, width);
    abs.Abstract(state, alpha);
    out.group.push_back(groups.FindOrInsert(StateView(alpha)).id);
    out.at_from.push_back(alpha == at.failure.from);
    out.states.emplace_back(state.begin(), state.end());
  }
  out.num_groups = groups.size();
  return out;
}

std::vector<Word> Refiner::ValuesOn(const Program& candidate, const Weights& weights,
                                    std::uint32_t threads) const {
  std::vector<Word> values;
  if (weights.states.empty()) return values;
  const IntModel model(candidate, threads);
  const Expr& p = *candidate.abstractions.back().predicates.back().expr;
  for (const auto& state : weights.states) values.push_back(model.Holds(p, StateView(state), 0));
  return values;
}

namespace {

// The reached set with k new predicates any way (the view invariant as before), and `words`, a
// reached abstract state widened so: the new predicates' bits at `place`, before the failed bit.
struct Widened {
  Widened(const StateStore& reached, std::size_t place_at, std::size_t count)
      : set(reached.width() + count), words(reached.width() + count), place(place_at), k(count) {
    for (std::uint32_t id = 0; id < reached.size(); ++id) {
      for (std::size_t bits = 0; bits < (std::size_t{1} << k); ++bits) {
        Widen(reached.Get(id), bits);
        set.FindOrInsert(StateView(words));
      }
    }
  }
  void Widen(StateView a, std::size_t bits) {
    std::copy(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(place), words.begin());
    for (std::size_t i = 0; i < k; ++i) words[place + i] = (bits >> i) & 1U;
    words[place + k] = a[place];
  }

  StateStore set;
  std::vector<Word> words;
  std::size_t place;
  std::size_t k;
};

// The candidates' values of a combination as bits, the first the lowest.
std::size_t BitsOf(const std::vector<Word>& combo) {
  std::size_t bits = 0;
  for (std::size_t i = 0; i < combo.size(); ++i) bits |= std::size_t{combo[i]} << i;
  return bits;
}

}  // namespace

bool Refiner::RemovesBreak(const Program& candidate, const Break& at,
                           const std::vector<std::vector<Word>>& combos, LimitWatch* limits) {
  const AbstractionSpec& spec = candidate.abstractions.back();
  const std::size_t place = at.reached.width() - 1;  // the new predicates', before the failed bit
  const std::size_t k = spec.predicates.size() - (place - spec.pcs.size());
  Widened widened(at.reached, place, k);
  const StateStore& wider = widened.set;
  std::vector<Word>& words = widened.words;
  const auto widen = [&widened](StateView a, std::size_t bits) { widened.Widen(a, bits); };
  const bool other = at.failure.thread == kOtherThread;
  const ActionClass action{at.failure.action, other ? 1U : at.failure.thread, other, false, false};
  // Whether a step from a with the candidates at `bits` reaches b at `count` (none: undecided).
  const auto reaches = [&](std::optional<std::uint32_t> count,
                           std::size_t bits) -> std::optional<bool> {
    widen(StateView(at.failure.from), bits);
    std::vector<std::vector<Word>> successors;
    std::string why;
    if (!AbstractSuccessorsOf(candidate, spec, count, at.min_threads, action, StateView(words),
                              wider, timeout_ms_, limits, &figures_.stats, &successors, &why,
                              Shared())) {
      return std::nullopt;
    }
    return std::any_of(successors.begin(), successors.end(), [&](const auto& s) {
      std::vector<Word> narrow(s.begin(), s.end());
      narrow.erase(narrow.begin() + static_cast<std::ptrdiff_t>(place),
                   narrow.begin() + static_cast<std::ptrdiff_t>(place + k));
      return narrow == at.failure.to;
    });
  };
  // Whether no step from a with the candidates at `bits` reaches b (false when undecided).
  const auto blocks = [&](std::size_t bits) {
    ++figures_.tested;
    // With the thread count symbolic, the smallest count first: its queries are free of
    // quantifiers, and a step it finds is a step of the symbolic query too (whose states include
    // those of every count), so a move it cannot block is refused without the slower query.
    if (!at.count && at.min_threads >= 2 && program_->symmetric &&
        reaches(at.min_threads, bits) == std::optional<bool>(true)) {
      return false;
    }
    return reaches(at.count, bits) == std::optional<bool>(false);
  };
  if (!combos.empty()) {
    return std::all_of(combos.begin(), combos.end(),
                       [&](const std::vector<Word>& c) { return blocks(BitsOf(c)); });
  }
  // Without concrete states at a: some value admitted by a well-formed state must block.
  for (std::size_t bits = 0; bits < (std::size_t{1} << k); ++bits) {
    if (!blocks(bits)) continue;
    widen(StateView(at.failure.from), bits);
    if (AbstractStateAdmitted(candidate, spec, at.count, at.min_threads, StateView(words), wider,
                              timeout_ms_, limits, &figures_.stats, Shared()) == SatResult::kSat) {
      return true;
    }
  }
  return false;
}

std::vector<std::uint32_t> Refiner::Scores(const Weights& weights,
                                           const std::vector<std::vector<Word>>& values) const {
  // 0: the candidate holds or fails alike in each class, an invariant of the reached states that
  // the abstraction does not yet state.
  std::vector<std::uint32_t> score(pool_.size(), 0);
  for (std::size_t c = 0; c < pool_.size(); ++c) {
    if (values[c].empty()) continue;
    std::vector<std::uint8_t> seen(weights.num_groups, 0);
    for (std::size_t i = 0; i < values[c].size(); ++i) {
      seen[weights.group[i]] |= static_cast<std::uint8_t>(values[c][i] != 0 ? 2 : 1);
    }
    score[c] = static_cast<std::uint32_t>(std::count(seen.begin(), seen.end(), 3));
  }
  return score;
}

std::vector<Refiner::Move> Refiner::SmallMoves(const std::vector<std::uint32_t>& score,
                                               const std::vector<bool>& open) {
  const std::size_t n = score.size();
  std::vector<Move> moves;
  for (std::size_t c = 0; c < n; ++c) {
    if (open[c]) moves.push_back({{c}, score[c]});
  }
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t b = a + 1; b < n; ++b) {
      if (!open[a] || !open[b] || score[a] + score[b] > kPairScore) continue;
      moves.push_back({{a, b}, score[a] + score[b]});
    }
  }
  // Triples, after the singles and pairs of equal score, at most kMaxTriples of them (and within
  // kMaxMoves in all): an invariant that needs three atoms at once.
  std::vector<std::size_t> low;  // open, and of a score a triple can have
  for (std::size_t c = 0; c < n; ++c) {
    if (open[c] && score[c] <= kPairScore) low.push_back(c);
  }
  std::size_t triples = 0;
  for (std::size_t a = 0; a < low.size() && triples < kMaxTriples; ++a) {
    for (std::size_t b = a + 1; b < low.size() && triples < kMaxTriples; ++b) {
      for (std::size_t c = b + 1; c < low.size() && triples < kMaxTriples; ++c) {
        const std::uint32_t sum = score[low[a]] + score[low[b]] + score[low[c]];
        if (sum > kPairScore) continue;
        moves.push_back({{low[a], low[b], low[c]}, sum});
        ++triples;
      }
    }
  }
  std::stable_sort(moves.begin(), moves.end(), [](const Move& x, const Move& y) {
    return std::pair(x.score, x.picks.size()) < std::pair(y.score, y.picks.size());
  });
  if (moves.size() > kMaxMoves) moves.resize(kMaxMoves);
  return moves;
}

void Refiner::GroupMoves(const std::vector<std::uint32_t>& score, const std::vector<bool>& open,
                         std::vector<Move>& moves) const {
  const auto add_group = [&](const std::vector<std::size_t>& members) {
    if (members.size() <= 2 || members.size() > kMaxGroup) return;
    std::uint32_t total = 0;
    for (const std::size_t c : members) total += score[c];
    moves.insert(moves.begin(), Move{members, total});
  };
  // The counting atoms with the Boolean variables: a counter of threads in some locations is
  // read together with the flags that say which round they are in (a barrier's sense).
  const auto boolean = [&](const std::string& text) {
    const auto named = [&](const std::vector<Variable>& vars) {
      return std::any_of(vars.begin(), vars.end(), [&](const Variable& v) {
        return v.type == Type::kBool && v.name == text;
      });
    };
    return named(program_->shared) || named(program_->locals);
  };
  std::vector<std::size_t> counting;
  for (std::size_t c = figures_.horn_candidates; c < pool_.size(); ++c) {
    if (!open[c]) continue;
    if (pool_[c].find("== count(") != std::string::npos || boolean(pool_[c])) counting.push_back(c);
  }
  if (std::any_of(counting.begin(), counting.end(),
                  [&](std::size_t c) { return !boolean(pool_[c]); })) {
    add_group(counting);
  }
  // An `unsafe` property's first break needs several facts at once where an assertion at the
  // place needs one at a time (a lock: that no other thread is inside, the lock's flag, that no
  // other thread is about to release): the Boolean variables and what the other threads are not
  // doing, together.
  if (!program_->unsafe.empty()) {
    std::vector<std::size_t> others;
    for (std::size_t c = figures_.horn_candidates; c < pool_.size(); ++c) {
      if (open[c] && (boolean(pool_[c]) || pool_[c].starts_with("forall i"))) others.push_back(c);
    }
    if (others.size() > kMaxGroup) others.resize(kMaxGroup);
    add_group(others);
  }
  // The Horn solver's atoms together state an inductive invariant (with the locations): tried
  // first, all at once, when singles and pairs cannot say it (TryMove keeps a minimal part).
  std::vector<std::size_t> horn;
  for (std::size_t c = 0; c < figures_.horn_candidates; ++c) {
    if (open[c]) horn.push_back(c);
  }
  add_group(horn);
}

std::vector<Refiner::Move> Refiner::Moves(const Weights& weights,
                                          const std::vector<std::vector<Word>>& values,
                                          std::size_t depth) const {
  const std::vector<std::uint32_t> score = Scores(weights, values);
  std::vector<bool> open(pool_.size());
  for (std::size_t c = 0; c < pool_.size(); ++c) {
    open[c] = (!values[c].empty() || weights.states.empty()) && !Taken(c, depth);
  }
  std::vector<Move> moves = SmallMoves(score, open);
  GroupMoves(score, open, moves);
  return moves;
}

bool Refiner::Taken(std::size_t c, std::size_t depth) const {
  return (depth < banned_.size() && banned_[depth].contains(pool_[c])) ||
         std::find(figures_.added.begin(), figures_.added.end(), pool_[c]) != figures_.added.end();
}

bool Refiner::Refine(const Break& at, LimitWatch* limits) {
  stuck_ = false;
  if (figures_.added.size() >= kMaxRefinements) {
    figures_.stopped =
        "the search reached its bound of " + std::to_string(kMaxRefinements) + " added predicates";
    stuck_ = true;
    return false;
  }
  const std::size_t depth = moves_.size();
  if (banned_.size() <= depth) banned_.resize(depth + 1);
  fit_threads_ = at.count.value_or(at.min_threads);
  const Weights weights = Weigh(at);
  if (log_ != nullptr) {
    Log(fmt::format("break at ({}) to ({}), {} sampled states, {} at the first",
                    DescribeAbstract(*program_, *spec_, StateView(at.failure.from)),
                    DescribeAbstract(*program_, *spec_, StateView(at.failure.to)),
                    weights.states.size(),
                    std::count(weights.at_from.begin(), weights.at_from.end(), true)));
  }
  AddPreconditions(at);
  std::vector<std::vector<Word>> values(pool_.size());
  for (std::size_t c = 0; c < pool_.size(); ++c) {
    if (const auto candidate = WithPredicates({"predicate " + pool_[c] + ";"})) {
      values[c] = ValuesOn(*candidate, weights, at.sample_threads);
    }
  }
  const std::uint64_t work_before = figures_.stats.work;
  bool spent = false;
  for (const Move& move : Moves(weights, values, depth)) {
    if (limits != nullptr && limits->Check()) {
      figures_.stopped = *limits->Check();
      return false;
    }
    if (figures_.stats.work - work_before > kMaxBreakWork) {
      spent = true;
      break;
    }
    if (TryMove(move, at, weights, values, limits)) return true;
  }
  figures_.stopped =
      "no candidate predicate removes the closure break (" + std::to_string(figures_.candidates) +
      " candidates, alone and in pairs" +
      (spent ? ", tried within the solver work one break may spend" : "") +
      (figures_.too_deep > 0
           ? fmt::format("; the preconditions of {} predicates lay more than {} steps below the "
                         "program's own, a loop unrolled one step at a time, and were left out",
                         figures_.too_deep, kMaxPreconditionDepth)
           : "") +
      ")";
  stuck_ = true;
  return false;
}

bool Refiner::TryMove(const Move& move, const Break& at, const Weights& weights,
                      const std::vector<std::vector<Word>>& values, LimitWatch* limits) {
  const auto removes = [&](const std::vector<std::size_t>& picks) -> std::unique_ptr<Program> {
    std::vector<std::string> lines;
    lines.reserve(picks.size());
    for (const std::size_t c : picks) lines.push_back(fmt::format("predicate {};", pool_[c]));
    std::unique_ptr<Program> candidate = WithPredicates(lines);
    if (!candidate) return nullptr;
    // The value combinations the candidates take in the sampled states at a.
    std::vector<std::vector<Word>> combos;
    for (std::size_t i = 0; i < weights.states.size(); ++i) {
      if (!weights.at_from[i]) continue;
      std::vector<Word> combo;
      combo.reserve(picks.size());
      for (const std::size_t c : picks) combo.push_back(values[c][i]);
      if (std::find(combos.begin(), combos.end(), combo) == combos.end()) combos.push_back(combo);
    }
    if (!weights.states.empty() && combos.empty()) return nullptr;  // a not in the sample
    return RemovesBreak(*candidate, at, combos, limits) ? std::move(candidate) : nullptr;
  };
  std::unique_ptr<Program> candidate = removes(move.picks);
  if (!candidate) return false;
  std::vector<std::size_t> picks = move.picks;
  if (picks.size() == 2) {  // keep one alone when it suffices
    for (const std::size_t c : move.picks) {
      if (auto alone = removes({c})) {
        picks = {c};
        candidate = std::move(alone);
        break;
      }
    }
  } else if (picks.size() > 2) {  // a group: drop each member that the rest can do without
    for (std::size_t i = picks.size(); i-- > 0;) {
      std::vector<std::size_t> fewer = picks;
      fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
      if (auto without = removes(fewer)) {
        picks = std::move(fewer);
        candidate = std::move(without);
      }
    }
  }
  std::string names;
  for (const std::size_t c : picks) {
    figures_.added.push_back(pool_[c]);
    lines_.push_back("predicate " + pool_[c] + ";");
    names += (names.empty() ? "" : " and ") + pool_[c];
  }
  moves_.push_back(Move{picks, move.score});
  figures_.round_notes.push_back(
      "the break at (" + DescribeAbstract(*program_, *spec_, StateView(at.failure.from)) +
      ") to (" + DescribeAbstract(*program_, *spec_, StateView(at.failure.to)) + "): added " +
      names);
  Log(fmt::format("{} (score {})", figures_.round_notes.back(), move.score));
  owned_ = std::move(candidate);
  program_ = owned_.get();
  spec_ = &owned_->abstractions.back();
  return true;
}

bool Refiner::Backtrack() {
  if (!stuck_ || moves_.empty()) return false;
  if (figures_.rounds >= max_rounds_) {
    figures_.stopped += "; the search ended at its bound of " + std::to_string(max_rounds_) +
                        " verification rounds";
    return false;
  }
  const Move last = moves_.back();
  moves_.pop_back();
  figures_.round_notes.pop_back();
  std::string names;
  for (std::size_t i = 0; i < last.picks.size(); ++i) {
    names = names.empty() ? figures_.added.back()
                          : fmt::format("{} and {}", figures_.added.back(), names);
    figures_.added.pop_back();
    lines_.pop_back();
  }
  ++figures_.backtracks;
  Log("dead end, dropped " + names);
  const std::size_t depth = moves_.size();
  banned_.resize(depth + 1);
  // A dead end bans the move's first candidate at this depth (a pair's, its first).
  banned_[depth].insert(pool_[last.picks.front()]);
  owned_ = WithPredicates({});
  program_ = owned_.get();
  spec_ = &owned_->abstractions.back();
  stuck_ = false;
  figures_.stopped.clear();
  return true;
}

}  // namespace druba::predabs
