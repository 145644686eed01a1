// The game on the table when the tablet page was made: the page's import map points this
// module at that game's tablet.js (web_ui/assets.py TABLE_GAME), so app.js draws its board
// as the page's modules run. This file is what it finds with no game on the table: nothing.
export {};
