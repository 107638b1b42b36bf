// scalewall/platform/output_file.h: the one place that writes an output file.
//
// write_output_file writes the whole text to a temporary file in the target's directory,
// flushes it to disk, and renames it over the target, so that a reader sees the old file or
// the new one, never a part; on any failure (a full disk, a directory that does not exist or
// cannot be written) the temporary file is removed and the old file, if any, is left as it
// was. An output is never written over one of the run's inputs.
#ifndef SCALEWALL_OUTPUT_FILE_H_
#define SCALEWALL_OUTPUT_FILE_H_

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace scalewall {

// An output could not be written: the run failed for a reason other than its input (exit
// status 1 in the command-line tool). The message names the path and the system's reason.
class OutputError : public std::runtime_error {
 public:
  explicit OutputError(const std::string& message) : std::runtime_error(message) {}
};

// Throws InputError (bad input, exit status 2) when `path` names the same file as one of
// `inputs` or of the files this run has read (input_files_read(), io/input_file.h): the same
// path once made canonical, or the same device and inode (a symbolic or hard link, "./x" for
// "x", /dev/stdin or /dev/fd/0 for a file on standard input). Standard input ("-",
// "/dev/stdin", ...) is the file or pipe on descriptor 0. The message names both.
void refuse_output_over_inputs(const std::string& path,
                               const std::vector<std::string>& inputs = {});

// Why a write failed, in the project's words, for the system error `error` (errno): "no such
// directory", "permission denied", "no space left on the device", ...
std::string write_error_reason(int error);

// The file an output at `path` replaces: the file a symbolic link at `path` points to
// (through every link, so that the links stay), else `path` itself.
std::string output_target(const std::string& path);

// Writes `text` to `path` atomically, as above. A symbolic link at `path` is followed, so the
// file it points to is replaced and the link stays. A target that exists and is neither a
// regular file nor a directory (/dev/stdout, a named pipe) is written in place.
// Throws InputError as refuse_output_over_inputs does, and OutputError when the file cannot
// be written (the target is a directory, the directory is missing or read-only, the disk is
// full).
void write_output_file(const std::string& path, std::string_view text,
                       const std::vector<std::string>& inputs = {});

}  // namespace scalewall

#endif  // SCALEWALL_OUTPUT_FILE_H_
