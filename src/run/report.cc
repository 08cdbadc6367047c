#include "run/report.h"

#include <fmt/format.h>

#include "common/files.h"
#include "common/resources.h"
#include "run/abstract_graph.h"
#include "run/schedule_svg.h"

namespace druba::run {

Json BreakJson(const ClosureBreak& b) {
  return {{"from", b.from}, {"action", b.action}, {"to", b.to}};
}

std::string BreakText(const ClosureBreak& b, const char* indent) {
  const std::string under = b.action.empty() ? "" : ", under " + b.action;
  return fmt::format("{}reached abstract state {} has the successor {}, which was not reached{}\n",
                     indent, b.from, b.to, under);
}

std::string NextAfterClosureBreak() {
  return "next: a finer abstraction (a .drb predicate that tells the two states of the closure "
         "break apart, or a larger --top for CPDS), a larger --exhaust-share or time limit for "
         "the exact search that went on, or `druba test` to hunt for a violation within bounds\n";
}

namespace {

// Invalid UTF-8 (a model's bytes, a file name) is replaced, never a reason to fail the report.
std::string Dump(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

Json TraceJson(const std::vector<TraceLine>& trace) {
  Json steps = Json::array();
  for (const TraceLine& t : trace) {
    Json s;
    s["kind"] = TraceKindName(t.kind);
    s["thread"] = t.thread;
    if (t.kind == TraceStep::Kind::kStep) s.update(t.fields);
    s["rounds"] = t.rounds;
    s["delays"] = t.delays;
    s["state"] = t.state;
    steps.push_back(std::move(s));
  }
  return steps;
}

Json ScheduleJson(const std::vector<RaiseEvent>& schedule) {
  Json out = Json::array();
  for (const RaiseEvent& e : schedule) {
    out.push_back({{"raise", e.dim == RaiseEvent::Dim::kStart    ? "start"
                             : e.dim == RaiseEvent::Dim::kRounds ? "rounds"
                                                                 : "delays"},
                   {"rounds", e.after.rounds},
                   {"delays", e.after.delays},
                   {"new_abstract", e.new_abstract},
                   {"image_calls", e.image_calls}});
  }
  return out;
}

// "proof" (which argument answered `safe`) and the sandwich proof's figures.
void ProofJson(Json& j, const CountRun& run) {
  const RunResult& r = run.result;
  j["proof"] = ProofName(r.proof);
  j["upper_bound"] = r.upper_bound ? Json(*r.upper_bound) : Json(nullptr);
  j["upper_bound_relation"] = run.relation;
  j["upper_bound_passes"] = r.upper_bound_stats.passes;
  j["upper_bound_time_s"] = r.upper_bound_stats.time_s;
  if (!r.upper_bound_note.empty()) j["upper_bound_note"] = r.upper_bound_note;
  j["symmetric_reached"] = r.symmetric_reached;
  j["symmetric_search_states"] = r.symmetric_search_states;
  j["symmetric_search_calls"] = r.symmetric_search_calls;
  j["symmetric_exhaustion"] = r.symmetric_exhaustion;
  if (r.proof == Proof::kSandwich) {
    j["lower_bound_search"] =
        r.lower_bound_by_symmetric_search ? "symmetric free search" : "round-robin";
  }
  j["symmetry_classes"] = run.symmetry_classes;
}

// The figures of one thread count's run (without its trace).
void CountJson(Json& j, const CountRun& run) {
  const RunResult& r = run.result;
  j["abstract_states"] = run.num_abstract;
  j["concrete_states"] = run.concrete_states;
  j["keys"] = run.keys;
  j["pareto_pairs"] = run.pareto_pairs;
  j["rounds"] = r.bounds.rounds;
  j["delays"] = r.bounds.delays;
  j["plateau_start"] = {{"rounds", r.plateau_start.rounds}, {"delays", r.plateau_start.delays}};
  ProofJson(j, run);
  j["image_calls"] = r.image_calls;
  j["image_calls_final_plateau"] = r.image_calls - r.image_calls_before_plateau;
  j["replayed_states"] = r.replayed_states;
  j["transitions"] = run.stats.transitions;
  j["reexpansions"] = run.stats.reexpansions;
  j["closure_checks"] = r.closure_checks;
  if (run.solver) {
    j["solver_queries"] = run.solver->queries;
    j["solver_time_s"] = run.solver->seconds;
  }
  j["time_s"] = r.time_s;
  if (run.num_actions > 0) j["disrespecting_actions"] = run.disrespecting;
  if (run.closure_break) j["closure_failure"] = BreakJson(*run.closure_break);
  if (!run.closure_breaks.empty()) j["closure_failures"] = run.closure_breaks;
  j["schedule"] = ScheduleJson(r.schedule);
}

// The sandwich proof in one line (empty when it was not tried).
std::string ProofLine(const CountRun& run) {
  const RunResult& r = run.result;
  if (r.upper_bound_stats.passes == 0) return "";
  if (!r.upper_bound) return "  sandwich proof: " + r.upper_bound_note + "\n";
  std::string out = fmt::format(
      "  upper bound O: {} abstract states ({} relation, {} passes, {:.3f} s)", *r.upper_bound,
      run.relation, r.upper_bound_stats.passes, r.upper_bound_stats.time_s);
  if (r.proof == Proof::kSandwich) {
    if (r.lower_bound_by_symmetric_search) {
      return out + fmt::format(
                       "; the states reached by a search over canonical representatives under "
                       "free scheduling ({} states, {} successor calls), closed under the thread "
                       "symmetry, cover it\n",
                       r.symmetric_search_states, r.symmetric_search_calls);
    }
    return out + "; the reached states closed under the thread symmetry cover it\n";
  }
  if (!r.upper_bound_note.empty()) return out + "; not used: " + r.upper_bound_note + "\n";
  return out + fmt::format("; the reached states closed under the thread symmetry: {}\n",
                           r.symmetric_reached);
}

// Why `safe` holds, in one line, for the proofs whose reason does not say it all (`who`: which
// thread count's run, when there are several).
std::string ProofDetail(const CountRun& run, const std::string& who) {
  const RunResult& r = run.result;
  const std::size_t n = run.num_abstract;
  if (r.proof == Proof::kSandwich) {
    return fmt::format(
        "  {}all {} reachable abstract states: the upper bound O is reached up to thread symmetry "
        "within (r,d) = ({},{})\n",
        who, n, r.bounds.rounds, r.bounds.delays);
  }
  if (r.proof == Proof::kUpperBound) {
    return fmt::format(
        "  no state of the upper bound O ({} abstract states, a superset of the reachable ones) "
        "violates the property\n",
        n);
  }
  if (r.proof == Proof::kExhausted && r.symmetric_exhaustion) {
    return fmt::format(
        "  {}proof: exhausted up to thread symmetry: the {} states a search under free "
        "scheduling stored, one per orbit ({} successor calls), are every reachable one up to a "
        "permutation of the threads, so the {} abstract states are exactly the reachable ones, "
        "whatever the abstraction\n",
        who, r.symmetric_search_states, r.symmetric_search_calls, n);
  }
  if (r.proof == Proof::kExhausted) {
    return fmt::format(
        "  {}proof: exhausted: the {} concrete states explored are every reachable one, so the "
        "{} abstract states are exactly the reachable ones, whatever the abstraction\n",
        who, run.concrete_states, n);
  }
  if (r.proof != Proof::kPlateau) return "";
  const std::string actions = run.num_actions == 0
                                  ? ""
                                  : fmt::format("{} of {} actions disrespect the abstraction; ",
                                                run.disrespecting.size(), run.num_actions);
  return fmt::format(
      "  {}all {} reachable abstract states reached: the abstract sets at (r,d) = ({},{}) and "
      "({},{}) agree; {}{} disrespecting successors checked\n",
      who, n, r.plateau_start.rounds, r.plateau_start.delays, r.bounds.rounds, r.bounds.delays,
      actions, r.closure_checks);
}

// "  2 threads: safe, ...": one line per thread count run.
std::string CountLine(const CountRun& run) {
  const RunResult& r = run.result;
  std::string out = fmt::format(
      "  {} thread{}: {}, {} abstract states, {} concrete states, (r,d) = ({},{}), "
      "{} successor calls",
      run.threads, run.threads == 1 ? "" : "s", VerdictName(r.verdict), run.num_abstract,
      run.concrete_states, r.bounds.rounds, r.bounds.delays, r.image_calls);
  if (run.solver) {
    out += fmt::format(", {} solver queries ({:.2f} s)", run.solver->queries, run.solver->seconds);
  }
  return out + fmt::format(", {:.3f} s\n", r.time_s);
}

std::string Statistics(const Report& report) {
  const CountRun& run = report.last();
  const RunResult& r = run.result;
  const std::string split =
      report.options.command != Command::kVerify
          ? ""
          : fmt::format(" ({} before the final plateau, {} during it)",
                        r.image_calls_before_plateau, r.image_calls - r.image_calls_before_plateau);
  std::string out = fmt::format(
      "bounds at the end{}: {} round{}, {} delay{}\n"
      "statistics{}:\n"
      "  {:12} abstract states\n"
      "  {:12} concrete states stored ({} keys with finder, {} Pareto pairs)\n"
      "  {:12} successor calls{}\n"
      "  {:12} transitions, {} rediscoveries dominated, {} re-expanded\n",
      report.run_scope, r.bounds.rounds, r.bounds.rounds == 1 ? "" : "s", r.bounds.delays,
      r.bounds.delays == 1 ? "" : "s", report.run_scope, run.num_abstract, run.concrete_states,
      run.keys, run.pareto_pairs, r.image_calls, split, run.stats.transitions, run.stats.dominated,
      run.stats.reexpansions);
  if (r.replayed_states > 0) {
    out += fmt::format(
        "  {:12} of the concrete states taken on from earlier refinement rounds' searches, "
        "without a successor call\n",
        r.replayed_states);
  }
  if (r.symmetric_exhaustion) {
    out += fmt::format(
        "  {:12} states stored by the search over one state per orbit ({} successor "
        "calls)\n",
        r.symmetric_search_states, r.symmetric_search_calls);
  }
  if (run.solver) {
    out += fmt::format("  {:12} solver queries ({:.2f} s)\n", run.solver->queries,
                       run.solver->seconds);
  }
  return out +
         fmt::format("  {:12.3f} s on {} thread{}, {:.1f} MB peak memory, {:.1f} bytes per key\n",
                     report.time_s, run.jobs, run.jobs == 1 ? "" : "s", PeakRssMb(),
                     run.bytes_per_key);
}

// At most `limit` of `items` under `title`, one a line, and how many more there are and where
// they are all (`rest`).
std::string ListText(const std::string& title, const std::vector<std::string>& items,
                     std::size_t limit, const std::string& rest) {
  if (items.empty()) return "";
  if (limit == 0) return fmt::format("{}: not listed here ({})\n", title, rest);
  std::string out = title + ":\n";
  for (std::size_t i = 0; i < items.size() && i < limit; ++i) out += "  " + items[i] + "\n";
  if (items.size() > limit) {
    out += fmt::format("  ... and {} more ({})\n", items.size() - limit, rest);
  }
  return out;
}

// The abstract states (of a proof, or a small set that did not decide) and the disrespecting
// actions: the first ten of each (--dump-abstract and --json have them all).
std::string AbstractText(const Report& report) {
  const CountRun& run = report.last();
  std::string out;
  if (report.list_abstract && report.options.command == Command::kVerify &&
      (report.verdict == Verdict::kSafe ||
       (report.verdict == Verdict::kUnknown && run.num_abstract <= 64))) {
    out += ListText(fmt::format("abstract states ({})", run.num_abstract), run.abstract_states,
                    report.listed, "--dump-abstract FILE writes them all");
  }
  if (report.disrespecting) {
    out += ListText(fmt::format("actions that disrespect the abstraction{} ({})",
                                report.disrespecting_scope, report.disrespecting->size()),
                    *report.disrespecting, report.listed, "--json lists them all");
  } else if (report.list_abstract) {
    out += ListText(
        fmt::format("actions that disrespect the abstraction ({})", run.disrespecting.size()),
        run.disrespecting, report.listed, "--json lists them all");
  }
  return out;
}

// For an `unknown`: what the user can do next.
std::string NextSteps(const Report& report) {
  if (report.verdict != Verdict::kUnknown) return "";
  const CountRun& last = report.last();
  if (!report.next.empty()) return report.next;
  if (last.closure_break) return NextAfterClosureBreak();
  if (report.options.time_limit_default && report.reason.find("time limit") != std::string::npos) {
    return fmt::format(
        "next: the run stopped at the default time limit of {:g} s: --time-limit SEC gives it "
        "longer (0: no limit), or `druba test` hunts within smaller bounds\n",
        kDefaultTimeLimitS);
  }
  if (report.reason.find("limit") != std::string::npos) {
    return "next: a larger --time-limit or --memory-limit, or `druba test` with smaller bounds\n";
  }
  return "";
}

}  // namespace

std::string JsonReport(const Report& report) {
  const CountRun& last = report.last();
  Json j;
  j["verdict"] = VerdictName(report.verdict);
  j["reason"] = report.reason;
  j["command"] = CommandName(report.options.command);
  j["model"] = report.options.model;
  j.update(report.header);
  j["mode"] = ModeName(report.options.mode);
  CountJson(j, last);
  j["time_s"] = report.time_s;
  j["peak_rss_mb"] = PeakRssMb();
  j["bytes_per_key"] = last.bytes_per_key;
  if (!last.bytes_by_part.is_null()) j["bytes_per_key_by_part"] = last.bytes_by_part;
  j["warnings"] = report.warnings;
  j["traces"] = !report.options.no_trace;
  j["jobs"] = last.jobs;
  if (report.list_abstract) j["abstract_state_list"] = last.abstract_states;
  if (report.per_count) {
    j["runs"] = Json::array();
    for (const CountRun& run : report.runs) {
      Json one;
      one["threads"] = run.threads;
      one["verdict"] = VerdictName(run.result.verdict);
      one["reason"] = run.result.reason;
      CountJson(one, run);
      if (!run.trace.empty()) one["trace"] = TraceJson(run.trace);
      j["runs"].push_back(std::move(one));
    }
  }
  for (const Section& section : report.sections) j[section.key] = section.json;
  if (report.verdict == Verdict::kViolation && !last.property.empty()) {
    j["property"] = last.property;
  }
  if (report.verdict == Verdict::kViolation && !last.trace.empty()) {
    j["trace_statements"] = last.trace_statements;
    j["trace_found_statements"] = last.trace_found_statements;
    j["trace_fewest"] = last.trace_fewest;
    j["trace"] = TraceJson(last.trace);
  }
  return Dump(j);
}

std::string TraceText(const std::vector<TraceLine>& trace) {
  std::string out = "     #  thread  round  delays  statement\n";
  std::size_t statements = 0;
  std::uint32_t folded = 0;  // delays since the last statement
  for (const TraceLine& t : trace) {
    if (t.kind == TraceStep::Kind::kInitial) {
      out += "  initial  " + t.state + "\n";
      continue;
    }
    if (t.kind == TraceStep::Kind::kDelay) ++folded;
    if (t.kind != TraceStep::Kind::kStep) continue;
    const std::string delays =
        folded == 0 ? std::to_string(t.delays) : fmt::format("{} (+{})", t.delays, folded);
    folded = 0;
    out += fmt::format("  {:4}  T{:<6} {:<6} {:<7} {}", ++statements, t.thread, t.rounds, delays,
                       t.action);
    if (!t.failure.empty()) out += "  FAILS: " + t.failure;
    if (!t.changes.empty()) out += "  ->" + t.changes;
    out += "\n";
  }
  return out + "  reached  " + trace.back().state + "\n";
}

std::string TraceHeadline(const CountRun& run) {
  std::size_t slots = 0;
  std::size_t delays = 0;
  for (const TraceLine& t : run.trace) {
    slots += t.kind == TraceStep::Kind::kInitial ? 0 : 1;
    delays += t.kind == TraceStep::Kind::kDelay ? 1 : 0;
  }
  const std::size_t n = run.trace_statements;
  const std::size_t found = run.trace_found_statements;
  std::string how;
  if (run.trace_fewest) {
    how = found == n ? "the fewest of any violating run"
                     : fmt::format("the fewest of any violating run (the run found had {})", found);
  } else {
    // The run found may be as short as shortening gets it: then it is not "shortened from" it.
    const std::string from =
        found == n ? "the run found" : fmt::format("shortened from the run found ({})", found);
    how = run.trace_search_stopped ? from + "; a limit stopped the search for the fewest"
                                   : from + "; not known to be the fewest (--shortest finds them)";
  }
  return fmt::format(
      "trace: {} statement{}, {}; {} Round-Robin slots, {} of them delays "
      "(--trace-out writes every slot)\n",
      n, n == 1 ? "" : "s", how, slots, delays);
}

std::string TextReport(const Report& report) {
  const RunOptions& options = report.options;
  const CountRun& last = report.last();
  // The answer first: the verdict, and why.
  std::string out = fmt::format("{} {}: {}, {}\n", report.program, CommandName(options.command),
                                options.model, report.subject);
  out += fmt::format("verdict: {} ({})\n", VerdictName(report.verdict), report.reason);
  if (report.verdict == Verdict::kSafe) {
    out += ProofDetail(last, report.per_count ? fmt::format("{} threads: ", last.threads) : "");
  }
  out += ProofLine(last);
  if (report.per_count) {
    for (const CountRun& run : report.runs) out += CountLine(run);
  }
  for (const Section& section : report.sections) {
    if (section.place == Section::Place::kWhy) out += section.text;
  }
  // Then the trace, the closure break and the details.
  if (report.verdict == Verdict::kViolation && !last.trace.empty()) {
    out += TraceHeadline(last) + TraceText(last.trace);
  }
  if (last.closure_break) out += BreakText(*last.closure_break, "  ");
  if (last.closure_breaks.size() > 1) {
    out += ListText(fmt::format("  every reached state with an unreached successor{}",
                                last.closure_breaks.size() >= 20 ? " (the first 20)" : ""),
                    last.closure_breaks, 5, "--json lists them");
  }
  for (const Section& section : report.sections) {
    if (section.place == Section::Place::kDetail) out += section.text;
  }
  out += AbstractText(report);
  if (options.no_trace) {
    out += "traces off (--no-trace)";
    if (report.verdict == Verdict::kViolation) out += ": no trace for this violation";
    out += "\n";
  }
  // Then the figures, and what to do next.
  out += Statistics(report);
  out += NextSteps(report);
  if (report.verdict == Verdict::kBounded) {
    out += "note: no violation within the bounds is not a proof; `druba verify` proves safety\n";
  }
  return out;
}

std::string TraceFile(const Report& report) {
  const CountRun& last = report.last();
  Json j;
  j["druba_trace"] = 1;
  j["model"] = report.options.model;
  j["threads"] = last.threads;
  j.update(report.trace_header);
  if (!last.property.empty()) j["property"] = last.property;
  j["steps"] = TraceJson(last.trace);
  return Dump(j);
}

std::string DumpHeader(Verdict verdict, const std::string& reason, Proof proof) {
  if (verdict == Verdict::kSafe && proof == Proof::kUpperBound) {
    return "# an upper bound of the reachable abstract states, not exactly them (" + reason + ")\n";
  }
  if (verdict == Verdict::kSafe) return "";
  return fmt::format("# incomplete: the abstract states reached before the run ended ({}: {})\n",
                     VerdictName(verdict), reason);
}

std::vector<std::string> WriteOutputFiles(const Report& report) {
  std::vector<std::string> warnings;
  const RunOptions& options = report.options;
  const CountRun& last = report.last();
  if (!options.json_out.empty()) WriteFileAtomically(options.json_out, JsonReport(report));
  if (!options.dump_abstract.empty()) {
    std::string text = DumpHeader(report.verdict, report.reason, last.result.proof);
    for (const std::string& line : last.abstract_states) text += line + "\n";
    WriteFileAtomically(options.dump_abstract, text);
  }
  if (!options.trace_out.empty() && !last.trace.empty()) {
    WriteFileAtomically(options.trace_out, TraceFile(report));
  }
  if (!options.dot.empty()) {
    if (last.dot.empty()) {
      warnings.push_back(fmt::format(
          "druba: --dot: no graph written (more than {} abstract states, or --mode explicit)",
          kMaxDotNodes));
    } else {
      WriteFileAtomically(options.dot, last.dot);
    }
  }
  if (!options.certificate.empty() && report.verdict == Verdict::kSafe) {
    if (last.certificate.empty()) {
      warnings.push_back("druba: --certificate: no certificate written: " + last.certificate_note);
    } else {
      WriteFileAtomically(options.certificate, last.certificate);
    }
  }
  if (!options.trace_svg.empty() && !last.trace.empty()) {
    WriteFileAtomically(options.trace_svg, TraceSvg(last.trace, last.threads,
                                                    report.svg_title + ": " +
                                                        std::string(VerdictName(report.verdict))));
  }
  if (!options.schedule_svg.empty()) {
    WriteFileAtomically(options.schedule_svg,
                        ScheduleSvg(last.result.schedule, last.result, report.svg_title));
  }
  return warnings;
}

}  // namespace druba::run
