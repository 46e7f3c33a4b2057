// The console's entry point (bundled by widget/build.ts into console.js, served at /console).
import { render } from 'preact';
import { App } from './app.tsx';

render(<App />, document.getElementById('app')!);
