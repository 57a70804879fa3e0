// What every page of the site does, whatever it teaches: its continuous controls get sliders.
import { addSliders } from './controls.js';

addSliders();
