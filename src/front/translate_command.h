// `druba translate PROGRAM.c`: print the .drb program a C program is verified as (docs/c.md).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace druba::front {

struct TranslateOptions {
  std::string program;  // the C file
};

// The subcommand `translate` and its argument, added to `app`.
CLI::App* AddTranslate(CLI::App& app, TranslateOptions& options);

// The translation, for the command line to print; throws InputError on bad input.
std::string Translation(const TranslateOptions& options);

}  // namespace druba::front
