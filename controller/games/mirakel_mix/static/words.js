// Mirakel Mix's own words: the six potion kinds (cards, flasks, obstacles) by name.
import { pretty as inWords } from "/static/js/ui.js";

export const CARD_NAMES = {
  flame_wall: "Flame wall", poison_pit: "Poison pit", lightning_grid: "Lightning grid",
  monster_crypt: "Monster crypt", double_speed: "Double speed", place_swap: "Place swap",
};

/** An id in the game's words: "flame_wall" → "Flame wall". */
export const pretty = (id) => inWords(id, CARD_NAMES);
