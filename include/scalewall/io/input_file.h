// scalewall/io/input_file.h: the one place that reads an input file.
//
// Every reader (scenario and fabric TOML, measurement logs, times files, scaling tables) reads
// its file through read_input_file and parses the text it returns, so that every file argument
// has the same limits:
//   * regular files only: a directory, a named pipe (FIFO), a device such as /dev/zero or
//     /dev/urandom, or a socket is refused at once, naming the path and what it is; nothing
//     ever blocks on a pipe or reads an endless device;
//   * at most kMaxInputFileBytes (256 MB); a larger file is refused, and a file that grows
//     while it is read is cut off at the limit with an error, never read past it.
// "-" is standard input, which may be a pipe or a terminal: it is read to its end, under the
// same size limit. /dev/stdin (and /dev/fd/0, /proc/self/fd/0) name standard input too and are
// read the same way, though they are no regular file.
// Errors are InputError naming the path (bad input, exit status 2).
#ifndef SCALEWALL_INPUT_FILE_H_
#define SCALEWALL_INPUT_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace scalewall {

// The largest input file read: 256 MB (decimal, 256,000,000 bytes).
inline constexpr std::uint64_t kMaxInputFileBytes = 256'000'000;

// The whole content of the regular file at `path`. `what` names the file's role in messages
// ("measurement file", "fabric file"): "cannot open fabric file 'x.toml': no such file".
// `max_bytes` is the size limit (kMaxInputFileBytes unless a test asks for less).
// Throws InputError when the file is missing, unreadable, not a regular file, or larger than
// `max_bytes`.
std::string read_input_file(const std::string& path, std::string_view what,
                            std::uint64_t max_bytes = kMaxInputFileBytes);

// Every file read so far by read_input_file in this process, by the name it was given
// ("-" or "/dev/stdin" for standard input), each name once, in the order first read. An
// output is compared with each of them (platform/output_file.h), so that no output replaces a
// file the run read, whichever command or reader read it: a scenario, the fabric it names, a
// measurement log, standard input.
std::vector<std::string> input_files_read();

// True for the names of standard input: "-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0".
// Such a file has no folder of its own: paths inside it are relative to the current directory.
bool is_standard_input(std::string_view path);

// Takes the next line of `text` (up to, not including, its '\n') into `line` and removes it
// from `text`; false once `text` is used up. A last line without '\n' is a line; a '\r' before
// the '\n' stays in `line`. Reads text from read_input_file line by line:
//   for (std::string_view line; next_line(text, line);) ...
bool next_line(std::string_view& text, std::string_view& line);

// What a file system object is, in words, for messages: "a directory", "a named pipe (FIFO)",
// "a character device", "a block device", "a socket", "a regular file". `mode` is st_mode.
std::string_view file_type_words(unsigned mode);

}  // namespace scalewall

#endif  // SCALEWALL_INPUT_FILE_H_
