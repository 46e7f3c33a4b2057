// The console's entry point (bundled by src/bundles.ts into console.js, served at /console).
import { render } from 'preact';
import { App } from './app.tsx';

render(<App />, document.getElementById('app')!);
