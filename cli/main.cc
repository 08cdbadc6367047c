// druba's command line: a thin layer over the library (STYLE.md 10).
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <csignal>
#include <exception>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/compose_command.h"
#include "cli/cpds_command.h"
#include "cli/drb_command.h"
#include "cli/exit_codes.h"
#include "common/diagnostics.h"

namespace {

std::atomic<bool> g_interrupted{false};  // set by SIGINT; the run polls it and ends cleanly

extern "C" void OnInterrupt(int /*signal*/) {
  g_interrupted.store(true);
}

// The model kinds, told apart by the model's file name: each has an option group, and an option
// of another kind's group is an error that names the option and the model's kind.
struct ModelKind {
  const char* name;       // "a CPDS model", in messages
  const char* group;      // the option group's title in --help
  const char* extension;  // "" matches every name the kinds before it did not
  int (*run)(const druba::run::RunOptions&, const std::atomic<bool>*);  // verify, test, replay
};
constexpr ModelKind kDrb{"a .drb program", ".drb programs", ".drb", druba::cli::RunDrb};
constexpr ModelKind kCpds{"a CPDS model", "CPDS models (.pds)", ".pds", druba::cli::RunCpds};
constexpr ModelKind kKinds[] = {kDrb, kCpds};

// The kind whose extension ends the model's name; an input error when none does (no kind
// catches every name, so a file is never read as the wrong kind).
const ModelKind& KindOf(const std::string& model) {
  for (const ModelKind& kind : kKinds) {
    if (model.ends_with(kind.extension)) return kind;
  }
  std::error_code error;
  if (std::filesystem::is_directory(model, error)) {
    throw druba::InputError({model, 0, 0}, "it is a directory, not a model");
  }
  std::string known;
  for (const ModelKind& kind : kKinds) {
    known += std::string(known.empty() ? "" : ", ") + kind.name + " (" + kind.extension + ")";
  }
  throw druba::InputError({model, 0, 0}, "not a model druba reads: the kinds are " + known);
}

// Every subcommand's option group of each kind.
struct KindGroupEntry {
  const CLI::App* app;
  const char* kind;
  CLI::Option_group* group;
};
std::vector<KindGroupEntry> g_kind_groups;

// The option group of `kind` in `app`, made on first use.
CLI::Option_group* KindGroup(CLI::App* app, const ModelKind& kind) {
  for (const KindGroupEntry& entry : g_kind_groups) {
    if (entry.app == app && entry.kind == kind.name) return entry.group;
  }
  CLI::Option_group* group = app->add_option_group(kind.group);
  g_kind_groups.push_back({app, kind.name, group});
  return group;
}

// An empty value (an unset shell variable) would turn a property check into a proof.
const CLI::Validator kNotEmpty(
    [](const std::string& value) { return value.empty() ? std::string("it is empty") : ""; }, "",
    "not empty");

// --init, --spec and --target.
void AddCpdsInputOptions(CLI::Option_group* cpds, druba::run::RunOptions& o) {
  cpds->add_option("--init", o.init, "initial state file (default: the model's name with .init)");
  auto* spec = cpds->add_option("--spec", o.spec, "a .spec file naming a target visible state");
  spec->check(kNotEmpty);
  cpds->add_option("--target", o.target,
                   "a target visible state 'g|t0,t1,...' ('-' empty stack, '*' anything)")
      ->excludes(spec)
      ->check(kNotEmpty);
}

void AddCommonOptions(CLI::App* app, druba::run::RunOptions& o) {
  app->add_option("model", o.model, "the model: a CPDS (.pds) or an integer program (.drb)")
      ->required();
  CLI::Option_group* cpds = KindGroup(app, kCpds);
  CLI::Option_group* drb = KindGroup(app, kDrb);
  AddCpdsInputOptions(cpds, o);
  app->add_flag("--json", o.json, "print one JSON object on stdout");
  cpds->add_option("--top", o.top, "K: the abstraction keeps the top K symbols of each stack")
      ->check(CLI::Range(1, 64));
  app->add_option("--trace-out", o.trace_out, "write a violation's trace as JSON")
      ->check(kNotEmpty);
  app->add_flag("--deadlock", o.deadlock,
                "also a violation: a reached state where no thread can move and some thread has "
                "not finished (CPDS: its stack is not empty; .drb: it is not at `end` or at a "
                "label starting with `end`). For .drb programs only exhaustion proves its "
                "absence");
  app->add_flag("--shortest", o.shortest,
                "report a violation with the fewest statements of any violating run (a "
                "breadth-first search under free scheduling after the violation is found: up to "
                "a whole explicit search, within the limits). By default that search gets as "
                "many successor calls as the run made (at most about four million), and when it "
                "does not finish the trace found is shortened by dropping statements while it "
                "still fails");
  app->add_flag("--no-trace", o.no_trace,
                "report a violation without its trace (traces cost no memory: a violation's is "
                "found backwards over the stored states, which takes time)");
  app->add_option("--dot", o.dot,
                  "write the reached abstract states and the abstract transitions between them "
                  "(Graphviz; at most 300 states)")
      ->check(kNotEmpty);
  app->add_option("--schedule-svg", o.schedule_svg,
                  "draw the path the driver took through the (rounds, delays) plane as SVG")
      ->check(kNotEmpty);
  app->add_flag("--progress", o.progress,
                "a progress line on stderr about once a second (default when stderr is a "
                "terminal)");
  app->add_option("--dump-abstract", o.dump_abstract,
                  "write the reached abstract states, one per line, sorted")
      ->check(kNotEmpty);
  // NaN passes a plain >= 0 check; a finite, non-negative number is wanted.
  const CLI::Validator limit(
      [](const std::string& value) {
        try {
          const double v = std::stod(value);
          return std::isfinite(v) && v >= 0 ? std::string() : "expects a finite number >= 0";
        } catch (const std::exception&) {
          return std::string("expects a number");
        }
      },
      "", "limit");
  app->add_option("--time-limit", o.time_limit_s,
                  "stop with 'unknown' after SEC seconds (0, the default: no limit)")
      ->check(limit);
  app->add_option("--memory-limit", o.memory_limit_mb,
                  "stop with 'unknown' above MB resident (0, the default: no limit)")
      ->check(limit);
  app->add_option("--jobs", o.jobs,
                  "threads that expand each frontier (default 0: one per core, used while "
                  "measured faster than one); the verdict, the reached states and the trace do "
                  "not depend on it")
      ->check(CLI::Range(0, 64));
  drb->add_option("--threads", o.threads,
                  "N threads, or N.. for every thread count from N (default: the file's)");
  drb->add_option("--abstraction", o.abstraction,
                  "which abstraction block to use (default: the first)");
  drb->add_option("--solver-timeout", o.solver_timeout_ms,
                  "milliseconds per solver query; a timeout makes the verdict 'unknown' "
                  "(default 20000)");
  drb->add_option_function<std::string>(
         "--refine", [&o](const std::string& v) { o.refine = v == "on"; },
         "verify: when the closure test fails, add a predicate taken from the program that removes "
         "the break and verify again (on, the default); off: the abstraction as given, the paper's "
         "algorithm alone. A proof prints the abstraction that proved it as a block to paste")
      ->check(CLI::IsMember({"on", "off"}));
  drb->add_option("--max-threads", o.max_threads,
                  "with --threads N..: the largest thread count to try (default 8)");
}

// An option of a kind other than the model's: an input error naming both.
void CheckKindOptions(const std::string& model) {
  const ModelKind& kind = KindOf(model);
  for (const KindGroupEntry& entry : g_kind_groups) {
    if (entry.kind == kind.name) continue;
    for (const CLI::Option* option : entry.group->get_options()) {
      if (option->count() == 0) continue;
      throw druba::InputError(
          {option->get_name(), 0, 0},
          std::string("this option is for ") + entry.kind + ", and " + model + " is " + kind.name);
    }
  }
}

// An option whose value names an enumerator, parsed straight into `target`: the names are the
// library's own (`name`), so they are written once; CLI11 checks them first, in `all`'s order.
template <class Enum, std::size_t N>
void AddEnumOption(CLI::App* app, const std::string& flag, Enum& target, const Enum (&all)[N],
                   std::string_view (*name)(Enum), const std::string& help) {
  std::map<std::string, Enum> by_name;
  std::vector<std::string> names;
  for (const Enum value : all) {
    names.emplace_back(name(value));
    by_name.emplace(names.back(), value);
  }
  app->add_option_function<std::string>(
         flag, [&target, by_name](const std::string& value) { target = by_name.at(value); }, help)
      ->check(CLI::IsMember(names));
}

void AddVerify(CLI::App& app, druba::run::RunOptions& options) {
  CLI::App* verify = app.add_subcommand(
      "verify", "prove the model safe (or find a violation) under every interleaving");
  AddCommonOptions(verify, options);
  constexpr druba::Mode kModes[] = {druba::Mode::kDruba, druba::Mode::kAi, druba::Mode::kNaive,
                                    druba::Mode::kExplicit};
  AddEnumOption(verify, "--mode", options.mode, kModes, druba::ModeName,
                "druba (default); ai: closure under all actions after every raise; naive: every "
                "R(r,d) from scratch; explicit: all interleavings, no bounds");
  using druba::run::UpperBound;
  constexpr UpperBound kBounds[] = {UpperBound::kAuto, UpperBound::kJoint, UpperBound::kStatic,
                                    UpperBound::kOff};
  AddEnumOption(verify, "--upper-bound", options.upper_bound, kBounds, druba::run::UpperBoundName,
                "the sandwich proof (mode druba): compute O, an upper bound of the reachable "
                "abstract states closed under every action, and answer safe as soon as the "
                "reached states, closed under the thread symmetry, cover it. joint: pops "
                "(CPDS) by the may-lie-below relation computed with O, or (.drb, fixed thread "
                "count) the all-SAT post, O computed first; static (CPDS): a relation that "
                "ignores which states are reached; off: the paper's proof alone; auto "
                "(default): joint for CPDS, off for .drb (each abstract successor there is a "
                "solver query, dearer than most explorations)");
  verify
      ->add_option("--exhaust-share", options.exhaust_share,
                   "when the closure test fails (mode druba), the exact search goes on towards "
                   "exhaustion, where every reachable state is explored and the verdict needs no "
                   "abstraction: for at most this many times the successor calls spent before the "
                   "test, counted as at least 262,144 (default 4: at least about a million; 0: the "
                   "paper's algorithm alone). Every run ends; a state space that is not finite "
                   "ends at the budget with 'unknown'")
      ->check(CLI::NonNegativeNumber);
  verify
      ->add_option("--certificate", options.certificate,
                   "write the certificate of a safe verdict: the final abstract set and what the "
                   "proof assumed (CPDS: the may-lie-below relation; .drb: the abstraction, for "
                   "one thread count or every count), or after exhaustion the reachable states, "
                   "which `druba check` tests without this engine (docs/certificates.md)")
      ->check(kNotEmpty);
  CLI::Option_group* cpds = KindGroup(verify, kCpds);
  CLI::Option_group* drb = KindGroup(verify, kDrb);
  cpds->add_option("--upper-bound-share", options.upper_bound_share,
                   "without a target, O is computed alongside the exploration with at most this "
                   "share of its successor calls, so that it never slows a run the plateau proof "
                   "answers by much more (default 0.125; a large number computes O first)")
      ->check(CLI::PositiveNumber);
  drb->add_option("--max-value", options.max_value,
                  "explicit: a variable beyond +-this ends the search with 'unknown' "
                  "(default 100)");
  cpds->add_option("--max-stack", options.max_stack,
                   "explicit: a stack deeper than this ends the search with 'unknown' "
                   "(default 64)");
}

CLI::App* AddTest(CLI::App& app, druba::run::RunOptions& options) {
  CLI::App* test =
      app.add_subcommand("test", "explore R(rounds, delays) only: a bug hunt with a fixed budget");
  AddCommonOptions(test, options);
  test->add_option("--rounds", options.rounds, "round bound (default 20)");
  test->add_option("--delays", options.delays,
                   "delay bound; without it, delay budgets 0, 1, 2, ... are tried in turn and the "
                   "smallest that exposes a violation is reported");
  test->add_option("--max-delays", options.max_delays,
                   "the largest delay budget iterative deepening tries (default 10)");
  return test;
}

CLI::App* AddReplay(CLI::App& app, druba::run::RunOptions& options) {
  CLI::App* replay = app.add_subcommand(
      "replay", "re-execute a saved trace (--trace-out) on the model and confirm the violation");
  replay->add_option("model", options.model, "the model (.pds or .drb)")->required();
  replay->add_option("--trace", options.replay_trace, "the trace file")
      ->required()
      ->check(kNotEmpty);
  AddCpdsInputOptions(KindGroup(replay, kCpds), options);
  return replay;
}

CLI::App* AddCheck(CLI::App& app, druba::run::RunOptions& options) {
  CLI::App* check = app.add_subcommand(
      "check",
      "check a certificate (verify --certificate) against the model, independently of "
      "the engine that proved it: exit 0 valid, 10 invalid (naming the condition), 2 bad "
      "input");
  check
      ->add_option("model", options.model,
                   "the model (.drb, or .pds with the same --init, --spec or --target as when "
                   "it was certified)")
      ->required();
  check->add_option("--certificate", options.certificate, "the certificate file")
      ->required()
      ->check(kNotEmpty);
  // The model options of the verify line, checked against the certificate's claim; the search
  // options (bounds, modes, limits) do not apply to a check.
  check->footer(
      "check takes the model options of verify (--threads, --top, --deadlock, --init, --spec, "
      "--target), which must agree with the certificate; verify's search options do not apply");
  check->add_flag("--deadlock", options.deadlock, "the certificate must claim deadlock freedom");
  CLI::Option_group* cpds = KindGroup(check, kCpds);
  AddCpdsInputOptions(cpds, options);
  cpds->add_option_function<std::uint32_t>(
          "--top",
          [&options](std::uint32_t k) {
            options.top = k;
            options.top_given = true;
          },
          "the certificate must be for this K (unless exhaustion proved it: then its K is exact)")
      ->check(CLI::Range(1, 64));
  KindGroup(check, kDrb)
      ->add_option("--threads", options.threads,
                   "N or N..: the certificate must be for that count, or for every count from N");
  return check;
}

CLI::App* AddCompose(CLI::App& app, druba::cli::ComposeOptions& options) {
  CLI::App* compose = app.add_subcommand(
      "compose", "build a CPDS instance from the PDA blocks (thread templates) of another file");
  compose->add_option("from", options.from, "the .pds whose blocks are the templates")->required();
  compose
      ->add_option("--blocks", options.blocks,
                   "the block (0-based) each thread runs, e.g. 0,1,2,2,3")
      ->required()
      ->delimiter(',')
      ->check(kNotEmpty);
  compose->add_option("--init", options.init, "the initial state 'g|w0,w1,...'")->required();
  compose->add_option("-o,--out", options.out, "OUT.pds; OUT.init is written beside it")
      ->required()
      ->check(kNotEmpty);
  return compose;
}

// What CLI11 cannot judge alone: --max-threads bounds --threads N.., whose proof compares N and
// N + 1 threads at least. An error message naming the option, or "".
std::string CheckMaxThreads(const CLI::App& command, const druba::run::RunOptions& o) {
  const CLI::Option* max = command.get_option_no_throw("--max-threads");
  if (max == nullptr || max->count() == 0) return "";
  if (!o.threads.ends_with("..")) {
    return "--max-threads: it bounds --threads N.. (every thread count from N), and --threads " +
           (o.threads.empty() ? std::string("is not given") : "is " + o.threads);
  }
  const std::string digits = o.threads.substr(0, o.threads.size() - 2);
  if (digits.empty() || digits.size() > 4 ||
      digits.find_first_not_of("0123456789") != std::string::npos) {
    return "";  // --threads itself is refused, with its own message
  }
  const std::uint32_t first = static_cast<std::uint32_t>(std::stoul(digits));
  if (o.max_threads > first) return "";
  return "--max-threads: " + std::to_string(o.max_threads) + " is below " +
         std::to_string(first + 1) + ": --threads " + o.threads + " compares " +
         std::to_string(first) + " and " + std::to_string(first + 1) + " threads at least";
}

// Runs the parsed command and maps its outcome to the exit code: the verdict's, or an input
// error (2), a report that could not be written (3) or an internal error (6).
int Run(const std::function<int()>& command) {
  try {
    const int code = command();
    std::cout.flush();
    if (!std::cout) {  // e.g. a full disk: the verdict was not delivered
      std::cerr << "druba: cannot write the report to standard output\n";
      return druba::exit_code::kOutput;
    }
    return code;
  } catch (const druba::InputError& e) {
    std::cerr << e.what() << "\n";
    return druba::exit_code::kInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "druba: out of memory; rerun with --memory-limit to stop cleanly\n";
    return druba::exit_code::kInternal;
  } catch (const std::exception& e) {
    std::cerr << "druba: internal error: " << e.what() << "\n";
    return druba::exit_code::kInternal;
  } catch (...) {  // nothing a library throws may end the process with a signal
    std::cerr << "druba: internal error: an exception of an unknown type\n";
    return druba::exit_code::kInternal;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"druba: delay-bounded testing that grows into verification"};
  app.require_subcommand(1);
  druba::run::RunOptions options;
  druba::cli::ComposeOptions compose_options;
  AddVerify(app, options);
  const CLI::App* verify = app.get_subcommand("verify");
  const CLI::App* test = AddTest(app, options);
  const CLI::App* replay = AddReplay(app, options);
  const CLI::App* check = AddCheck(app, options);
  const CLI::App* compose = AddCompose(app, compose_options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    if (check->parsed() && code != 0) std::cerr << check->get_footer() << "\n";
    return code == 0 ? 0 : druba::exit_code::kUsage;
  }
  if (compose->parsed()) return Run([&] { return druba::cli::RunCompose(compose_options); });
  if (const std::string wrong = CheckMaxThreads(test->parsed() ? *test : *verify, options);
      !wrong.empty()) {
    std::cerr << wrong << "\n";
    return druba::exit_code::kUsage;
  }
  using druba::run::Command;
  options.command = test->parsed()     ? Command::kTest
                    : replay->parsed() ? Command::kReplay
                    : check->parsed()  ? Command::kCheck
                                       : Command::kVerify;
  // SIGINT, SIGTERM (timeout, schedulers, CI) and SIGHUP end a run cleanly: `unknown`, the
  // statistics and a valid report, exit 5.
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
  std::signal(SIGHUP, OnInterrupt);
  if (isatty(STDERR_FILENO) != 0) options.progress = true;
  if (options.model.ends_with(".drb") && options.upper_bound == druba::run::UpperBound::kStatic) {
    std::cerr << "--upper-bound static: the static relation is for CPDS models (a .drb model's "
                 "upper bound is the all-SAT post: --upper-bound joint)\n";
    return druba::exit_code::kUsage;
  }
  return Run([&] {
    CheckKindOptions(options.model);
    return KindOf(options.model).run(options, &g_interrupted);
  });
}
