//! Whether the X server lets us in, asked as the window's own backend asks
//! (Xlib's `XOpenDisplay`, loaded at run time as winit loads it): a server
//! that answers but refuses the connection — a wrong `XAUTHORITY`, `sudo`,
//! `ssh -X` without its cookie — would otherwise panic inside winit.

/// Why the X server at `display` refuses us (None: it lets us in, or Xlib
/// cannot be asked, in which case the window reports for itself).
#[cfg(target_os = "linux")]
pub(super) fn refused(display: &str) -> Option<String> {
    use std::ffi::{c_char, c_int, c_void};
    type Open = unsafe extern "C" fn(*const c_char) -> *mut c_void;
    type Close = unsafe extern "C" fn(*mut c_void) -> c_int;
    // SAFETY: dlopen/dlsym with constant, NUL-terminated names; the symbols
    // are Xlib's documented `Display *XOpenDisplay(char *)` and
    // `int XCloseDisplay(Display *)`, called with a null name (DISPLAY) and
    // the display just opened; the library stays loaded for the process.
    unsafe {
        let lib = libc::dlopen(c"libX11.so.6".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        if lib.is_null() {
            return None;
        }
        let open = libc::dlsym(lib, c"XOpenDisplay".as_ptr());
        let close = libc::dlsym(lib, c"XCloseDisplay".as_ptr());
        if open.is_null() || close.is_null() {
            return None;
        }
        let open: Open = std::mem::transmute::<*mut c_void, Open>(open);
        let close: Close = std::mem::transmute::<*mut c_void, Close>(close);
        let connection = open(std::ptr::null());
        if connection.is_null() {
            return Some(format!(
                "the X server at DISPLAY={display} refused the connection (check XAUTHORITY: run as the user who started the X session, not through sudo; with ssh, use -X and let it set the cookie)"
            ));
        }
        close(connection);
    }
    None
}

#[cfg(not(target_os = "linux"))]
pub(super) fn refused(_: &str) -> Option<String> {
    None
}
