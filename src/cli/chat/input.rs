//! The player's lines, read as they come (a terminal gets each reply before
//! the next line is typed) and bounded: a line over [`MAX_LINE`] or not
//! UTF-8 is skipped with a word on stderr, and past [`MAX_INPUT`] the chat
//! stops reading (`--input /dev/zero` once grew past 6 GB).

use std::io::BufRead;

/// The longest line read (a message is a few sentences).
pub(super) const MAX_LINE: usize = 64 * 1024;
/// The most input a chat reads.
pub(super) const MAX_INPUT: u64 = 64 * 1024 * 1024;

/// Lines of the player's input, one message each.
pub(super) struct InputLines<R> {
    read: R,
    /// Bytes read so far.
    total: u64,
    /// Lines read so far (for the messages).
    line: usize,
    done: bool,
}

impl<R: BufRead> InputLines<R> {
    pub(super) fn new(read: R) -> Self {
        Self {
            read,
            total: 0,
            line: 0,
            done: false,
        }
    }

    /// Reads up to a newline, at most `limit` bytes, into `buf`; false at
    /// the end of the input, after an error, or past [`MAX_INPUT`].
    fn read_some(&mut self, buf: &mut Vec<u8>, limit: u64) -> bool {
        use std::io::Read;
        match (&mut self.read).take(limit).read_until(b'\n', buf) {
            Ok(0) => self.done = true,
            Ok(n) => self.total += n as u64,
            Err(e) => {
                eprintln!("（读不下去了：{e}；聊天到此为止）");
                self.done = true;
            }
        }
        if self.total > MAX_INPUT {
            eprintln!("（输入超过了 {} MiB，后面的不再读）", MAX_INPUT >> 20);
            self.done = true;
        }
        !self.done
    }
}

impl<R: BufRead> Iterator for InputLines<R> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        while !self.done {
            let mut buf = Vec::new();
            if !self.read_some(&mut buf, MAX_LINE as u64 + 1) && buf.is_empty() {
                return None;
            }
            self.line += 1;
            if buf.len() > MAX_LINE && buf.last() != Some(&b'\n') {
                eprintln!("（第 {} 行超过 {} KiB，跳过）", self.line, MAX_LINE >> 10);
                // The rest of the line, a piece at a time (bounded by MAX_INPUT).
                let mut rest = Vec::new();
                while rest.last() != Some(&b'\n') && self.read_some(&mut rest, MAX_LINE as u64) {
                    if rest.len() > MAX_LINE {
                        rest.drain(..rest.len() - 1);
                    }
                }
                continue;
            }
            match String::from_utf8(buf) {
                Ok(text) => return Some(text.trim_end_matches(['\n', '\r']).to_string()),
                Err(_) => eprintln!("（第 {} 行不是 UTF-8 文字，跳过）", self.line),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::{InputLines, MAX_LINE};

    #[test]
    fn bad_lines_are_skipped_and_the_rest_read() {
        let mut input = b"\xff\xfe bad\n".to_vec();
        input.extend(std::iter::repeat_n(b'x', MAX_LINE + 10));
        input.extend(b"\n\xe4\xbd\xa0\xe5\xa5\xbd\r\n/wait 1\nlast");
        let lines: Vec<String> = InputLines::new(&input[..]).collect();
        assert_eq!(lines, ["你好", "/wait 1", "last"]);
    }

    #[test]
    fn endless_input_without_a_newline_stops_at_the_bound() {
        let zeros = std::io::BufReader::new(std::io::repeat(0));
        assert_eq!(InputLines::new(zeros).count(), 0);
    }
}
