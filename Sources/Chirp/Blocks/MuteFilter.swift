/// The condition that hides the posts of the users a signed-in viewer muted, for the lists a
/// mute applies to: the global timeline and explore (the home feed's is in `app.home_feed`).
/// A mute is the viewer's preference, not an authorization, so the statements of those lists
/// carry it rather than a policy. Whether the viewer muted anyone is asked once per statement
/// (an init plan), so users without mutes pay no probe per row; a muter pays one probe of
/// `mutes_pkey` per row. Anonymous callers have no mutes, and their statements leave it out
/// (they may not read `mutes`).
enum MuteFilter {
    /// ` and …` for a statement whose post's author is `author`, a column name of the
    /// statement's own; empty without a viewer.
    static func and(author: String, signedIn: Bool) -> String {
        guard signedIn else { return "" }
        return """
             and (not exists (select from mutes m0 where m0.muter_id = (select app.user_id()))
                  or not exists (select from mutes m where m.muter_id = (select app.user_id()) and m.muted_id = \(author)))
            """
    }
}
