// scalewall: the command-line entry point. Parses the subcommand and its flags, lets the
// subcommand call the library and pick a reporter, and turns failures into the exit codes of
// docs/errors.md: 0 success, 2 bad input ("error: ..." naming the value), 1 anything else.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <new>
#include <string>
#include <string_view>

#include "cli/common.h"
#include "scalewall/base/error.h"
#include "scalewall/base/setting.h"
#include "scalewall/base/utf8.h"

namespace {

// The one way scalewall writes an error: "error: <what>" on one line of stderr, with the
// control characters an input name may carry (ESC, a line break) written visibly.
void print_error(std::string_view what) {
  std::cerr << "error: " << scalewall::visible(what) << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "scalewall: where a distributed job's scaling curve bends, and why.\n"
      "Every figure from the model commands is an analytic prediction, not a measurement.",
      "scalewall"};
  app.set_version_flag("--version", std::string(SCALEWALL_VERSION), "Print the version and exit");
  app.require_subcommand(1);
  app.footer(
      "Run 'scalewall <command> --help' for a command's flags and an example.\n"
      "Sizes: 4096, 14GB, 1.5GiB. Times: 2.5us, 300ms. Rates: 50GB/s, 400Gb/s, 400Gbps.");

  // The library names the settings a message suggests changing by kind; here they are flags.
  scalewall::set_setting_words(scalewall::Setting::kRankCount, "--ranks");
  scalewall::set_setting_words(scalewall::Setting::kSizeRange, "--min-bytes/--max-bytes");

  scalewall::cli::register_scaling(app);
  scalewall::cli::register_message(app);
  scalewall::cli::register_collective(app);
  scalewall::cli::register_straggler(app);
  scalewall::cli::register_predict(app);
  scalewall::cli::register_plan(app);
  scalewall::cli::register_report(app);
  scalewall::cli::register_diagnose(app);
  scalewall::cli::register_select(app);
  scalewall::cli::register_calibrate(app);
  scalewall::cli::register_validate(app);
  scalewall::cli::register_fabrics(app);
  scalewall::cli::register_gpus(app);
  scalewall::cli::register_models(app);
  scalewall::cli::register_compare(app);
  scalewall::cli::register_accuracy(app);

  // CLI11 reports a mistyped command as "a subcommand is required"; name it instead.
  if (argc > 1 && argv[1][0] != '-') {
    const std::string first = argv[1];
    std::string known;
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands({})) {
      found = found || sub->get_name() == first;
      known += (known.empty() ? "" : ", ") + sub->get_name();
    }
    if (!found) {
      print_error("unknown command '" + first + "' (expected one of: " + known + ")");
      return 2;
    }
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    print_error(e.what());
    std::cerr << "Run 'scalewall --help' or 'scalewall <command> --help' for usage.\n";
    return 2;
  } catch (const scalewall::InputError& e) {
    print_error(e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    print_error("out of memory: the run needed more memory than this process may use (give a "
                "smaller input, or raise the memory limit)");
    return 1;
  } catch (const std::exception& e) {
    print_error(e.what());
    return 1;
  }
  return 0;
}
