export { main, runMain } from './main.js';
