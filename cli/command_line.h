// druba's command line for any table of model kinds: the subcommands and their kind-free options
// (CLI11), each kind's options in a group of its own, the kind of the model chosen by its file
// name, the signal handler, and the outcome printed with its exit code. cli/main.cc gives it
// druba's kinds; a test gives it one more (tests/kinds).
#pragma once

#include <functional>
#include <span>

#include <CLI/CLI.hpp>

#include "run/front_end.h"

namespace druba::cli {

// A subcommand of one tool beside the run commands (`compose`): added to `app`; `run` is called
// when it was parsed and returns the exit code.
struct Tool {
  std::function<CLI::App*(CLI::App& app)> add;
  std::function<int()> run;
};

// Parses `argv`, runs the command on the model's kind and returns the process exit code.
int Main(int argc, char** argv, std::span<run::FrontEnd* const> kinds, std::span<const Tool> tools);

// Runs `command` and maps its outcome to the exit code: its own, or an input error (2), a report
// that could not be written (3) or an internal error (6).
int Guarded(const std::function<int()>& command);

}  // namespace druba::cli
