//! Names Flink gives to the columns a window TVF adds.

pub const WINDOW_START: &str = "window_start";
pub const WINDOW_END: &str = "window_end";
pub const WINDOW_TIME: &str = "window_time";
