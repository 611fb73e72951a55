// bench/dryrun: pop, 108 bpm, in A
setcpm(108/4)

// drums: four on the floor, claps on two and four, 16th hats
$: s("bd*4").bank("RolandTR808").gain(.9)
$: s("~ cp ~ cp").bank("RolandTR808").room(.2)
$: s("hh*16").bank("RolandTR808").gain("[.5 .25]*8").pan(sine.range(.3, .7).slow(2))

// bass: a walking line in the scale
$: n("<0 2 4 5 4 2 1 -1>*2").scale("A1:minor").s("sine")
  .lpf(900).decay(.2).sustain(.4).gain(.5)

// pad: long chords with a slow attack
$: chord("<F C Dm Bb>").voicing().s("supersaw")
  .attack(.5).release(1.2).sustain(1).lpf(1200).room(.6).gain(.2)

// lead: a soundfont melody with a call and response
$: note("<[a4 a5] [a5 a4]>(3,8)").add(note("<0 5 7 3>")).s("gm_vibraphone")
  .every(2, x => x.rev()).room(.4).gain(.5)

// texture: zzfx blips
$: s("zzfx*2").note("<c6 g6>").decay(.05).sustain(0).gain(.1).pan(rand)
