/* The TUI measures with the program's one width function (util/textWidth.ts). */
export {clusters, displayWidth, fit, terminalForm, truncate, truncateMiddle} from '../../util/textWidth.js';
