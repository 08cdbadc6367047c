#include "front/translate_command.h"

#include "c/translate.h"
#include "common/diagnostics.h"

namespace druba::front {

CLI::App* AddTranslate(CLI::App& app, TranslateOptions& options) {
  CLI::App* sub = app.add_subcommand(
      "translate",
      "print the .drb program a C program is verified as: each statement labelled by its C line "
      "(docs/c.md)");
  sub->add_option("program", options.program, "the C program (.c)")->required();
  return sub;
}

std::string Translation(const TranslateOptions& options) {
  if (!options.program.ends_with(".c")) {
    throw InputError({options.program, 0, 0}, "translate reads a C program (.c)");
  }
  return c::TranslateC(options.program);
}

}  // namespace druba::front
